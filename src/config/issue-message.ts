/**
 * One line for one schema problem: `path: expected X, got Y` (or `path: unknown key "k"`), the
 * path written as in the file (`workers[1].processes`). Shared by the config file and by source
 * options, whose schemas may come from the user's own zod.
 */

/** A schema problem, as zod 3 and 4 both report it. */
export interface SchemaIssue {
  path: ReadonlyArray<PropertyKey>;
  message: string;
  code?: string;
  keys?: ReadonlyArray<string>;
}

/** `workers[1].processes` for `['workers', 1, 'processes']`; `(top level)` for none. */
export function pathString(p: ReadonlyArray<PropertyKey>): string {
  let s = '';
  for (const k of p) s += typeof k === 'number' ? `[${k}]` : s ? `.${String(k)}` : String(k);
  return s || '(top level)';
}

/** The value at `p` inside `root`, or undefined. */
export function valueAt(root: unknown, p: ReadonlyArray<PropertyKey>): unknown {
  let v: unknown = root;
  for (const k of p) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** A value shown in a message: JSON, cut at 60 characters; `nothing` for undefined. */
export function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/**
 * The line for `issue`, found in `raw` (the input as written).
 * @param prefix what comes before the path, e.g. `collector.yaml: `.
 * @param base the path of `raw` inside the file (e.g. `['workers', 1]` for a worker's own keys).
 */
export function issueLine(
  prefix: string,
  issue: SchemaIssue,
  raw: unknown,
  base: ReadonlyArray<PropertyKey> = [],
): string {
  const at = pathString([...base, ...issue.path]);
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    return `${prefix}${at}: unknown key ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  }
  const got = valueAt(raw, issue.path);
  const msg = issue.message.replace(/^Invalid input: /, '').replace(/, received \w+$/, '');
  if (got === undefined) return `${prefix}${at}: missing (${msg})`;
  return `${prefix}${at}: ${msg}${/, got /.test(msg) ? '' : `, got ${show(got)}`}`;
}

/** `first line (and 2 more problems)`. */
export function withMore(first: string, total: number): string {
  const more = total - 1;
  return `${first}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''})` : ''}`;
}
