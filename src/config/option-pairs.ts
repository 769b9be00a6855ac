/**
 * `--source-option key=value` flags as an options object: the value is read as a YAML scalar or
 * flow collection (`5` is a number, `true` a boolean, `[a, b]` a list, anything else a string),
 * so the source's schema sees the same types a config file would give it; `kebab-case` keys
 * become `camelCase`, as the crawl flags do; a dotted key (`github.api=URL`) sets a key of an
 * object option.
 */
import YAML from 'yaml';
import { UsageError } from './usage-error.js';

/**
 * Parse `key=value` pairs (a key given twice: the last wins).
 * @throws UsageError naming the pair without `=` or with an empty key.
 */
export function parseOptionPairs(
  pairs: readonly string[],
  flag = '--source-option',
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    if (key === '') throw new UsageError(`${flag} "${pair}": expected key=value`);
    const text = pair.slice(eq + 1);
    let value: unknown = text;
    try {
      value = text.trim() === '' ? '' : YAML.parse(text);
    } catch {
      // not YAML: the text as it is
    }
    if (value === null || (typeof value === 'object' && !Array.isArray(value))) value = text;
    // `github.api=URL` sets the `api` key of the `github` object.
    const path = key.split('.').map((k) => k.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase()));
    if (path.some((k) => k === '' || k === '__proto__')) throw new UsageError(`${flag} "${pair}": bad key`);
    let at = out;
    for (const k of path.slice(0, -1)) {
      const inner = at[k];
      const obj = inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : {};
      at[k] = obj;
      at = obj as Record<string, unknown>;
    }
    at[path[path.length - 1]] = value;
  }
  return out;
}
