/**
 * The typed helper of `.mjs` configs and of the library's `run()`: `export default
 * defineConfig({...})`. A module of its own, without zod, so that importing the package stays
 * cheap (its type comes from the schema, which is not loaded).
 */
import type { ConfigInput } from './config-file.js';

/** Returns `config` as it is, typed as a config (see `ConfigFileSchema`). */
export function defineConfig(config: ConfigInput): ConfigInput {
  return config;
}
