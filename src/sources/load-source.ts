/**
 * Finding a source from what a config or the command line names: a built-in name, or the path of
 * an ES module whose default export is `defineSource({...})` (relative to the config file, or to
 * the current directory on the command line). The same reference is loaded again in each worker
 * process and page thread, so it is plain JSON.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from '../config/usage-error.js';
import { builtinNames, builtinSource, isBuiltin } from './registry.js';
import type { SourceDefinition } from './source.js';

/** Where a source comes from: plain JSON, sent to worker processes and page threads. */
export type SourceRef = { kind: 'builtin'; name: string } | { kind: 'module'; path: string };

/** A source ready to be used, and where it came from. */
export interface LoadedSource {
  def: SourceDefinition;
  /** Null for a definition handed over as an object (the library API): it cannot be loaded elsewhere. */
  ref: SourceRef | null;
  /** A built-in: its results are trusted (links already canonical). */
  builtin: boolean;
}

/** A source name: letters, digits, `_`, `-` (it names items, worker types and logs). */
const NAME = /^[A-Za-z0-9_-]+$/;

/** How a module path looks: a separator, a leading dot, or a JavaScript extension. */
const MODULE_PATH = /[/\\]|^\.|\.(m?js|cjs|m?ts)$/i;

/**
 * The reference for what `spec` names.
 * @param baseDir directory a relative module path is resolved against.
 * @throws UsageError when `spec` is neither a built-in nor a module path.
 */
export function sourceRef(spec: string, baseDir: string): SourceRef {
  if (builtinSource(spec) !== undefined) return { kind: 'builtin', name: spec };
  if (!MODULE_PATH.test(spec)) {
    throw new UsageError(
      `unknown source "${spec}": expected a built-in (${builtinNames().join(', ')}) or a module path such as ./sources/${spec}.mjs`,
    );
  }
  return { kind: 'module', path: path.resolve(baseDir, spec) };
}

/** How a reference is named in messages. */
export function describeRef(ref: SourceRef): string {
  return ref.kind === 'builtin' ? ref.name : ref.path;
}

/**
 * Load the source a reference names (a module is imported; Node caches it).
 * @throws UsageError, one line, when the module is missing, fails to load, or its default export
 *   is not a source.
 */
export async function loadSource(ref: SourceRef): Promise<LoadedSource> {
  if (ref.kind === 'builtin') {
    const def = builtinSource(ref.name);
    if (def === undefined) throw new UsageError(`unknown source "${ref.name}"`);
    return { def, ref, builtin: isBuiltin(def) };
  }
  const file = ref.path;
  if (!existsSync(file)) throw new UsageError(`source ${file}: not found`);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (e) {
    const hint = /\.m?ts$/i.test(file) ? ' (Node 20 cannot load TypeScript: compile it, or use .mjs)' : '';
    throw new UsageError(`source ${file}: cannot load: ${firstLine(e)}${hint}`);
  }
  return { def: checkDefinition(mod.default, `source ${file}`), ref, builtin: false };
}

/**
 * Use a definition handed over as an object (the library API).
 * @throws UsageError when it is not a source.
 */
export function sourceFromObject(def: unknown): LoadedSource {
  const checked = checkDefinition(def, 'source');
  return { def: checked, ref: null, builtin: isBuiltin(checked) };
}

/**
 * Check the shape of a source definition.
 * @param what how to name it in messages.
 * @throws UsageError naming the first field that is wrong.
 */
export function checkDefinition(def: unknown, what: string): SourceDefinition {
  const expect = 'expected defineSource({ name, handle, ... }) as the default export';
  if (def === null || typeof def !== 'object') throw new UsageError(`${what}: not a source (${expect})`);
  const d = def as Record<string, unknown>;
  if (typeof d.name !== 'string' || !NAME.test(d.name)) {
    throw new UsageError(`${what}: name: expected letters, digits, "_" or "-" (${expect})`);
  }
  if (typeof d.handle !== 'function')
    throw new UsageError(`${what}: handle: expected a function (${expect})`);
  for (const k of ['seeds', 'authorize', 'scope', 'rateBudget'] as const) {
    if (d[k] !== undefined && typeof d[k] !== 'function') {
      throw new UsageError(`${what}: ${k}: expected a function`);
    }
  }
  if (d.threadSafe !== undefined && typeof d.threadSafe !== 'boolean') {
    throw new UsageError(`${what}: threadSafe: expected true or false`);
  }
  const st = d.statuses;
  if (
    st !== undefined &&
    (!Array.isArray(st) || !st.every((n) => Number.isInteger(n) && n >= 300 && n <= 599))
  ) {
    throw new UsageError(`${what}: statuses: expected a list of HTTP statuses from 300 to 599`);
  }
  const o = d.options as { safeParse?: unknown } | undefined;
  if (o !== undefined && (o === null || typeof o.safeParse !== 'function')) {
    throw new UsageError(`${what}: options: expected a zod schema (z.object({...}))`);
  }
  return def as SourceDefinition;
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0];
}
