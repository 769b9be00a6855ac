/**
 * The package's name and version, read from its `package.json` — the one place they are written
 * (the `--version` output, the default User-Agent and the install hints use them).
 */
import { createRequire } from 'node:module';

interface PackageJson {
  name: string;
  version: string;
}

// Two levels up from every place this module runs: `src/config/`, `dist/config/` and
// `dist/bundle/` (where esbuild leaves a createRequire call as it is, read at run time).
const pkg = createRequire(import.meta.url)('../../package.json') as PackageJson;

/** The npm package name, e.g. `web-collector` (the command it installs is `collector`). */
export const PACKAGE_NAME: string = pkg.name;

/** The package version, e.g. `0.1.0`. */
export const PACKAGE_VERSION: string = pkg.version;
