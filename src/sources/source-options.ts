/**
 * A source's own options: the keys of a worker entry that are not common keys (or the
 * `--source-option k=v` pairs), parsed by the source's `options` schema. Unknown keys are refused
 * with where they are, as the config schema refuses its own; a source may not declare a common
 * key, which would be ambiguous beside it.
 */
import { issueLine, pathString, type SchemaIssue, unknownKeys, withMore } from '../config/issue-message.js';
import { UsageError } from '../config/usage-error.js';
import type { SourceDefinition } from './source.js';

/** Where the options come from, for messages. */
export interface OptionsPlace {
  /** Printed first, e.g. `collector.yaml: ` or `--source-option `. */
  prefix: string;
  /** Path of the options inside the file, e.g. `['workers', 1]`; empty on the command line. */
  base: ReadonlyArray<PropertyKey>;
}

/** The option keys a schema declares, when it is an object schema (zod 3 or 4); else null. */
export function declaredKeys(def: SourceDefinition): string[] | null {
  const shape = (def.options as { shape?: unknown } | undefined)?.shape;
  return shape !== null && typeof shape === 'object' ? Object.keys(shape) : null;
}

/**
 * Parse the source's options.
 * @param raw the option keys as written (JSON values).
 * @param commonKeys keys of a worker entry that are not the source's.
 * @returns the parsed options (`{}` for a source without a schema).
 * @throws UsageError, one line: an unknown key, a value the schema refuses, or a schema that
 *   declares a common key.
 */
export function parseSourceOptions(
  def: SourceDefinition,
  raw: Record<string, unknown>,
  commonKeys: ReadonlySet<string>,
  place: OptionsPlace,
): Record<string, unknown> {
  const declared = declaredKeys(def);
  const clash = declared?.find((k) => commonKeys.has(k));
  if (clash !== undefined) {
    throw new UsageError(
      `source ${def.name}: option "${clash}" is also a common worker key; the source must name it differently`,
    );
  }
  const unknown = Object.keys(raw).filter(
    (k) => def.options === undefined || (declared !== null && !declared.includes(k)),
  );
  if (unknown.length > 0) {
    const where =
      place.base.length > 0
        ? `${place.prefix}${pathString(place.base)}`
        : place.prefix.replace(/[.\s]+$/, '');
    const takes = declared && declared.length > 0 ? `source ${def.name} takes ${declared.join(', ')}` : null;
    // in a config's worker entry, the common keys sit beside the source's (on the command line they are flags)
    const inConfig = place.base.length > 0 && commonKeys.size > 0;
    const common = inConfig ? `every worker takes ${[...commonKeys].join(', ')}` : null;
    const listed = [takes, common].filter((t) => t !== null).join('; ') || null;
    const known = [...(declared ?? []), ...(inConfig ? commonKeys : [])];
    throw new UsageError(`${where}: ${unknownKeys(unknown, known, listed)}`);
  }
  if (def.options === undefined) return {};
  const r = def.options.safeParse(raw);
  if (r.success) return (r.data ?? {}) as Record<string, unknown>;
  const issues = r.error.issues as ReadonlyArray<SchemaIssue>;
  throw new UsageError(withMore(issueLine(place.prefix, issues[0], raw, place.base), issues.length));
}
