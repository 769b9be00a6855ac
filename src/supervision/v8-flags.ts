/**
 * The V8 flags and the memory allocator's settings a collector process runs with: the
 * `collector` command (`bin/collector.js`, run by /bin/sh, whose second line execs node as
 * `env VAR=… node FLAGS "$0" "$@"`) gives them to its process; worker processes are forked with
 * the flags and inherit the environment.
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

/**
 * glibc malloc settings in the environment of a collector process (Linux with glibc; others ignore
 * them; they replace a value the user set). The page thread, the body writer, libuv's pool and
 * zlib allocate their buffers with malloc, each thread in an arena of its own by default, and
 * blocks under glibc's adaptive mmap threshold (up to 32 MB) are kept after they are freed. One
 * arena (`MALLOC_ARENA_MAX=1`) and bodies of 64 KiB and more in mappings of their own, returned
 * when freed (`MALLOC_MMAP_THRESHOLD_=65536`), keep a crawl of large pages 10–15 MB lower (Python
 * docs 156–168 → 142–146 MB peak; PostgreSQL docs unchanged) for the same CPU and wall time
 * (bench/RESULTS.md, 2026-12-03 19:33, quiet machine).
 */
export const PROCESS_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: '65536',
};
