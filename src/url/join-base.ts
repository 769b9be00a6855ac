/**
 * Service base URLs that may carry a path prefix (GitHub Enterprise: `https://ghe.example/api/v3`):
 * joining a path under a base, and the reverse, the path of a URL below a base. `new URL(path,
 * base)` is wrong for both: a leading `/` drops the prefix, and without a trailing slash the last
 * prefix segment is replaced.
 */

/**
 * A base URL checked and normalised: http(s), no query, no fragment, no credentials, the path
 * prefix without its trailing slash (`''` for none).
 * @throws TypeError naming the base when it is not such a URL.
 */
export function parseBase(base: string): { origin: string; prefix: string } {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new TypeError(`base URL "${base}" is not a URL; give one such as https://api.github.com`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`base URL "${base}" must be http(s)`);
  if (u.search !== '' || u.hash !== '' || u.username !== '' || u.password !== '')
    throw new TypeError(`base URL "${base}" must have no query, fragment or credentials`);
  return { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') };
}

/**
 * Join a path (and query) under a base, keeping the base's path prefix:
 * `joinBase('https://ghe.example/api/v3/', '/repos/o/r')` → `https://ghe.example/api/v3/repos/o/r`.
 *
 * @param base an http(s) base URL, optionally with a path prefix (trailing slash or not).
 * @param path the path below the base, already percent-encoded where needed; a missing leading
 *   `/` is added. Dot segments are not interpreted (they are the caller's to avoid).
 * @param query optional query parameters, encoded with `URLSearchParams` (WHATWG URL) in the
 *   order given; `undefined` values are left out.
 * @returns the absolute URL as serialised by WHATWG URL.
 * @throws TypeError when the base is not an http(s) URL without query or fragment.
 */
export function joinBase(
  base: string,
  path: string,
  query?: Record<string, string | number | undefined>,
): string {
  const { origin, prefix } = parseBase(base);
  const rel = path.startsWith('/') ? path : `/${path}`;
  let qs = '';
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
    const s = params.toString();
    if (s) qs = `?${s}`;
  }
  return new URL(`${origin}${prefix}${rel}${qs}`).href;
}

/**
 * The path of `url` below `base` (starting with `/`, query excluded), or null when the URL is not
 * under the base: another origin, or a path outside the prefix (`/api/v30` is not under `/api/v3`).
 * @param url an absolute URL; an unparseable one yields null.
 * @param base as for {@link joinBase}.
 * @throws TypeError when the base is invalid.
 */
export function pathBelowBase(url: string, base: string): string | null {
  const { origin, prefix } = parseBase(base);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.origin !== origin) return null;
  const p = u.pathname;
  if (prefix === '') return p;
  if (p === prefix) return '/';
  return p.startsWith(`${prefix}/`) ? p.slice(prefix.length) : null;
}
