/**
 * The V8 flags a collector process runs with: the `collector` command's shebang line
 * (`bin/collector.js`) passes them to its process, and worker processes are forked with them.
 *
 * `--max-semi-space-size=2` (MB): the fetch loop's objects (requests, responses, items) live for
 * a few milliseconds; V8's default lets the young generation grow to 16 MB semi-spaces (48 MB of
 * reserved young space), which a crawl fills before its first scavenge and keeps as resident
 * memory. 2 MB keeps peak RSS 15–20 MB lower (PostgreSQL docs 152–160 → 133–138 MB, Python
 * docs 181–184 → 164–166 MB) for the same CPU (bench/RESULTS.md, 2026-12-03). Page threads set
 * their own young generation (`engine/page-threads.ts`).
 */
export const PROCESS_V8_FLAGS: readonly string[] = ['--max-semi-space-size=2'];

/**
 * `execArgv` with {@link PROCESS_V8_FLAGS} added where it does not set them already (a flag given
 * on the command line wins).
 * @param execArgv the Node.js options of a process, e.g. `process.execArgv`.
 */
export function withProcessV8Flags(execArgv: readonly string[]): string[] {
  const name = (f: string) => f.split('=')[0].replace(/_/g, '-');
  const given = new Set(execArgv.map(name));
  return [...execArgv, ...PROCESS_V8_FLAGS.filter((f) => !given.has(name(f)))];
}
