/** Whether `<root>/dist/` is missing or older than one of the build's inputs (see dist-freshness.mjs). */
export function distIsStale(root: string): boolean;
