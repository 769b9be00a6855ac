/**
 * Where the worker process's entry module is: `worker-main.js` beside this module, in `dist/runtime/`
 * (tsc) as in `dist/bundle/` (esbuild puts every entry and chunk side by side).
 */
import { fileURLToPath } from 'node:url';

/** Path of the compiled worker entry, forked by the supervisor once per worker process. */
export const WORKER_ENTRY = fileURLToPath(new URL('./worker-main.js', import.meta.url));
