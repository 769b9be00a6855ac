/**
 * A loaded source at work in one process (or page thread): its definition with the context it is
 * handed (parsed options, configured seeds, log, worker), and the calls the engine makes of it —
 * the requests of a round and the headers it authorizes at send time.
 */
import { canonicalize } from '../url/canonicalize.js';
import type { LoadedSource } from './load-source.js';
import { type EngineRequest, normalizeRequests } from './request.js';
import type { AuthorizeHeaders, SourceContext, SourceDefinition, SourceLog, WorkerInfo } from './source.js';

/** A source with its context. */
export interface RunningSource {
  def: SourceDefinition;
  ctx: SourceContext;
  /** A built-in: its results are trusted as they are. */
  builtin: boolean;
}

/** Log levels a source writes. */
export type SourceLogLevel = 'info' | 'warn' | 'error';

/** A {@link SourceLog} writing through `write` (fields are copied, never kept by reference). */
export function sourceLog(
  write: (level: SourceLogLevel, message: string, fields?: Record<string, unknown>) => void,
): SourceLog {
  const line = (level: SourceLogLevel) => (message: string, fields?: Record<string, unknown>) =>
    write(level, String(message), fields === undefined ? undefined : { ...fields });
  return { info: line('info'), warn: line('warn'), error: line('error') };
}

/** Put a loaded source to work with its context. */
export function runSource(
  loaded: LoadedSource,
  options: Record<string, unknown>,
  seeds: readonly string[],
  worker: WorkerInfo,
  log: SourceLog,
): RunningSource {
  return { def: loaded.def, ctx: { options, seeds, log, worker }, builtin: loaded.builtin };
}

/**
 * The requests of a round: the source's `seeds(ctx)`, normalized, or the configured seeds when it
 * has none.
 * @throws whatever `seeds()` throws; RequestError for a wrong request.
 */
export async function roundRequests(s: RunningSource): Promise<EngineRequest[]> {
  if (s.def.seeds === undefined) return [...s.ctx.seeds];
  return normalizeRequests(await s.def.seeds(s.ctx), undefined, 'seeds()');
}

/**
 * The URLs the source puts in scope besides the seeds (`scope(ctx)`), canonical; none without the
 * hook. Entries that are not absolute http(s) URLs are left out.
 * @throws whatever `scope()` throws.
 */
export function scopeUrls(s: RunningSource): string[] {
  const urls = s.def.scope?.(s.ctx) ?? [];
  return urls.map((u) => canonicalize(String(u))).filter((u): u is string => u !== null);
}

/**
 * The headers `authorize` adds to one hop of a request, or null (no hook, or nothing to add).
 * Names are lowercased; values must be strings.
 * @throws whatever `authorize()` throws; TypeError for a value that is not a string.
 */
export async function authorizeHeaders(
  s: RunningSource,
  url: string,
  label: string | undefined,
): Promise<Record<string, string> | null> {
  const hook = s.def.authorize;
  if (hook === undefined) return null;
  const got: AuthorizeHeaders = await hook.call(s.def, { url, label }, s.ctx);
  if (got === undefined || got === null) return null;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(got)) {
    if (typeof v !== 'string') throw new TypeError(`authorize(): header ${k}: expected a string`);
    out[k.toLowerCase()] = v;
  }
  return out;
}
