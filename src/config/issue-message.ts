/**
 * One line for one schema problem: `path: expected X, got Y` (or `path: unknown key "k" (did you
 * mean "key"?)`), the path written as in the file (`workers[1].processes`). Shared by the config
 * file and by source options, whose schemas may come from the user's own zod.
 */
import { closest, distance } from 'fastest-levenshtein';

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
 * The known key an unknown one was probably meant to be: the nearest by Levenshtein distance
 * (`fastest-levenshtein`), compared case-insensitively, when at most a third of the key's letters
 * (at least one) differ — `delays` → `delay`, `worker` → `workers`, `Concurency` → `concurrency`.
 * @returns null when no known key is that near.
 */
export function didYouMean(key: string, known: Iterable<string>): string | null {
  const candidates = [...known];
  if (candidates.length === 0 || key === '') return null;
  const lower = candidates.map((c) => c.toLowerCase());
  const best = closest(key.toLowerCase(), lower);
  const limit = Math.max(1, Math.floor(key.length / 3));
  return distance(key.toLowerCase(), best) <= limit ? candidates[lower.indexOf(best)] : null;
}

/**
 * `unknown key "delays" (did you mean "delay"?)` — or, without a near key, the known keys.
 * @param listed what to say of the known keys when none is near (e.g. `takes a, b, c`); omitted when null.
 */
export function unknownKeys(keys: readonly string[], known: Iterable<string>, listed: string | null): string {
  const names = keys.map((k) => `"${k}"`).join(', ');
  const guess = keys.length === 1 ? didYouMean(keys[0], known) : null;
  if (guess !== null) return `unknown key ${names} (did you mean "${guess}"?)`;
  return `unknown key ${names}${listed === null ? '' : ` (${listed})`}`;
}

/**
 * The line for `issue`, found in `raw` (the input as written).
 * @param prefix what comes before the path, e.g. `collector.yaml: `.
 * @param base the path of `raw` inside the file (e.g. `['workers', 1]` for a worker's own keys).
 * @param knownKeys the keys allowed at a path (for "did you mean"); none by default.
 */
export function issueLine(
  prefix: string,
  issue: SchemaIssue,
  raw: unknown,
  base: ReadonlyArray<PropertyKey> = [],
  knownKeys: (path: ReadonlyArray<PropertyKey>) => readonly string[] = () => [],
): string {
  const at = pathString([...base, ...issue.path]);
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const known = knownKeys(issue.path);
    return `${prefix}${at}: ${unknownKeys(issue.keys, known, known.length > 0 ? `expected one of ${known.join(', ')}` : null)}`;
  }
  const got = valueAt(raw, issue.path);
  const msg = issue.message.replace(/^Invalid input: /, '').replace(/, received \w+$/, '');
  if (got === undefined) return `${prefix}${at}: missing (${msg})`;
  return `${prefix}${at}: ${msg}${/, got /.test(msg) ? '' : `, got ${show(got)}`}`;
}

/**
 * A schema's problems in the order they are told: unknown keys first — a misspelt key (`worker:`
 * for `workers:`) also makes the real one "missing", and the typo is the cause.
 */
export function causesFirst<T extends SchemaIssue>(issues: readonly T[]): T[] {
  return [...issues].sort(
    (a, b) => Number(b.code === 'unrecognized_keys') - Number(a.code === 'unrecognized_keys'),
  );
}

/** `first line (and 2 more problems)`. */
export function withMore(first: string, total: number): string {
  const more = total - 1;
  return `${first}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''})` : ''}`;
}
