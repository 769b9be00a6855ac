/**
 * The `collector` command: what can start before the command's modules load starts first
 * (`prestart.ts`), then the command line is loaded and run (`command-line.ts`).
 */
import { prestart } from './prestart.js';

prestart(process.argv);
await import('./command-line.js');
