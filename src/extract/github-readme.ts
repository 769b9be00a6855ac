/**
 * A repository's README: the request that fetches it (raw host, or the REST API's
 * `/repos/{o}/{r}/readme` as JSON or raw), the exact bytes and file name out of the response (a
 * symbolic link, which the raw host serves as its target's path, is told apart and resolved), and
 * the links in it to other repositories (optional discovery).
 */
import { joinBase } from '../url/join-base.js';
import { type RepoRef, repoOfWebUrl } from './github-repo.js';

/**
 * How a README is fetched:
 * - `raw`: `<raw>/<o>/<r>/HEAD/<name>`, trying `names` in order (the raw host needs the exact,
 *   case-sensitive name); no API rate limit, no token;
 * - `api`: `<api>/repos/<o>/<r>/readme` as JSON (GitHub finds the README whatever its name; one
 *   request; the name comes with it; content base64, decoded to the exact bytes);
 * - `api-raw`: the same endpoint with `Accept: application/vnd.github.raw` (exact bytes, no base64
 *   overhead, but the response does not say the file's name: it is stored as `README`).
 */
export type ReadmeVia = 'raw' | 'api' | 'api-raw';

/**
 * File names tried on the raw host, in order (the commonest first: most repositories have
 * `README.md`; each miss costs one request). Configurable by the source's options.
 */
export const DEFAULT_README_NAMES: readonly string[] = [
  'README.md',
  'readme.md',
  'README.rst',
  'README',
  'README.txt',
  'Readme.md',
  'README.markdown',
];

/**
 * Paths below the repository root tried on the raw host after {@link DEFAULT_README_NAMES}: the
 * other places GitHub shows a README from (GitHub docs, "About READMEs": `.github`, root, `docs`).
 * The root is tried first, as nearly every repository has its README there.
 */
export const DEFAULT_README_PATHS: readonly string[] = ['.github/README.md', 'docs/README.md'];

/** Symbolic links followed from one README at most (a link to a link...). */
export const MAX_README_SYMLINKS = 5;

/** Media type of the REST API's JSON (GitHub REST docs, "Media types"). */
export const GITHUB_JSON = 'application/vnd.github+json';
/** Media type asking the contents/readme endpoints for the file's raw bytes. */
export const GITHUB_RAW = 'application/vnd.github.raw';
/** REST API version header sent with API requests (GitHub REST docs, "API versions"). */
export const GITHUB_API_VERSION = '2022-11-28';

/** Name used when the response does not say the README's name (`api-raw`). */
const UNNAMED_README = 'README';

/** The request for one README. */
export interface ReadmeRequest {
  url: string;
  /** Headers to send (no credentials: those are added at send time by the source's `authorize`). */
  headers: Record<string, string>;
  via: ReadmeVia;
  /** The path asked for below the repository root (`raw`: `README.md`, `docs/README.md`), or null when the API picks it. */
  name: string | null;
}

/**
 * The request for a repository's README.
 * @param bases the configured `github` bases (each may carry a path prefix).
 * @param via how to fetch (see {@link ReadmeVia}).
 * @param name for `raw`: the file to try, a name or a path below the repository root
 *   (`docs/README.md`; default the first of {@link DEFAULT_README_NAMES}).
 * @throws TypeError for an invalid base, or a name with an empty, `.` or `..` segment, `\` or NUL.
 */
export function readmeRequest(
  repo: RepoRef,
  bases: { api: string; raw: string },
  via: ReadmeVia,
  name: string = DEFAULT_README_NAMES[0],
): ReadmeRequest {
  const repoPath = `/${encodeURIComponent(repo.owner)}/${encodeURIComponent(repo.name)}`;
  if (via === 'raw') {
    if (!validPath(name))
      throw new TypeError(`README name "${name}" must be a file name or a path below the root`);
    const path = name.split('/').map(encodeURIComponent).join('/');
    return {
      url: joinBase(bases.raw, `${repoPath}/HEAD/${path}`),
      headers: {},
      via,
      name,
    };
  }
  return {
    url: joinBase(bases.api, `/repos${repoPath}/readme`),
    headers: {
      accept: via === 'api' ? GITHUB_JSON : GITHUB_RAW,
      'x-github-api-version': GITHUB_API_VERSION,
    },
    via,
    name: null,
  };
}

/**
 * The name to try after a 404 for `current` on the raw host, or null when all were tried (the
 * repository has no README under any of `names`).
 */
export function nextReadmeName(
  current: string,
  names: readonly string[] = DEFAULT_README_NAMES,
): string | null {
  const i = names.indexOf(current);
  return i >= 0 && i + 1 < names.length ? names[i + 1] : null;
}

function validName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/** A relative path below the repository root: `/`-separated valid names. */
function validPath(path: string): boolean {
  return path.split('/').every(validName);
}

/** The last segment of a repository path (`docs/README.md` → `README.md`). */
function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * Whether a raw-host answer is a symbolic link rather than a file, and where it leads. The raw
 * host serves a link (git mode 120000) as its target's path, as plain text: one short line, no
 * spaces, that names a README or a path (`docs/README.md`, `../README.md`). The target is
 * resolved against the link's directory.
 * @param body the answer's bytes.
 * @param path the link's path below the repository root (`README.md`).
 * @returns the target's path below the root, or null when the body is a file's content (or the
 *   target leaves the repository, or is the link itself).
 */
export function readmeSymlinkTarget(body: Buffer, path: string): string | null {
  if (body.length === 0 || body.length > 1024) return null;
  const text = body.toString('utf8');
  if (!/^[^\s\0<>"|*?:\\]+$/.test(text) || text.startsWith('/')) return null;
  if (!text.includes('/') && !/readme/i.test(text)) return null;
  const parts = path.split('/').slice(0, -1);
  for (const seg of text.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  const target = parts.join('/');
  return target !== '' && target !== path && validPath(target) ? target : null;
}

/**
 * A README file name's extension as written, with the dot (`README.md` → `.md`, `README` → `''`,
 * `README.en.rst` → `.rst`). A leading dot alone (`.readme`) is not an extension.
 */
export function readmeExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot) : '';
}

/** A README read out of a response. */
export interface ReadmeFile {
  /** The file's name (`README.md`, `readme.rst`, or `README` when unknown). */
  name: string;
  /** Its extension, see {@link readmeExtension}. */
  ext: string;
  /** Path in the repository (`docs/README.md`), when the API says; else the name. */
  path: string;
  /** The exact bytes (BOM, line endings and encoding as in the repository). */
  bytes: Buffer;
}

/**
 * What the API's JSON form held: the README, or a README too large for inline content (over
 * 1 MB the API sends `encoding: "none"` and no content; fetch `downloadUrl` from the raw host).
 */
export type ReadmeJson =
  | ({ kind: 'file' } & ReadmeFile)
  | { kind: 'too-large'; name: string; path: string; size: number; downloadUrl: string | null }
  /** A symbolic link (`type: "symlink"`): `target` resolved below the repository root. */
  | { kind: 'symlink'; path: string; target: string };

/**
 * Decode the API's JSON README (`GET /repos/{o}/{r}/readme`, `Accept: application/vnd.github+json`):
 * base64 `content` (newlines in it ignored) → the exact bytes.
 * @param json the parsed body.
 * @throws TypeError when it is not a file (or symlink) object, the encoding is unknown, or the
 *   decoded length differs from `size` (a cut-off or altered response).
 */
export function decodeReadmeJson(json: unknown): ReadmeJson {
  const o = (json ?? {}) as Record<string, unknown>;
  const name = typeof o.name === 'string' && validName(o.name) ? o.name : UNNAMED_README;
  const path = typeof o.path === 'string' && o.path !== '' ? o.path : name;
  if (typeof o === 'object' && o.type === 'symlink' && typeof o.target === 'string') {
    const target = readmeSymlinkTarget(Buffer.from(o.target, 'utf8'), path);
    if (target === null)
      throw new TypeError(`README symlink target ${JSON.stringify(o.target)} is not in the repository`);
    return { kind: 'symlink', path, target };
  }
  if (typeof o !== 'object' || (o.type !== undefined && o.type !== 'file'))
    throw new TypeError('README response is not a file object');
  const size = typeof o.size === 'number' ? o.size : null;
  const content = typeof o.content === 'string' ? o.content : '';
  if (o.encoding === 'none' || (content === '' && size !== null && size > 0)) {
    const downloadUrl = typeof o.download_url === 'string' ? o.download_url : null;
    return { kind: 'too-large', name, path, size: size ?? 0, downloadUrl };
  }
  if (o.encoding !== 'base64')
    throw new TypeError(`README content has unknown encoding ${JSON.stringify(o.encoding)}`);
  if (!/^[A-Za-z0-9+/=\s]*$/.test(content)) throw new TypeError('README content is not base64');
  const bytes = Buffer.from(content, 'base64');
  if (size !== null && bytes.length !== size)
    throw new TypeError(`README content decodes to ${bytes.length} bytes, "size" says ${size}`);
  return { kind: 'file', name, ext: readmeExtension(name), path, bytes };
}

/**
 * The README in a successful raw response (`raw` or `api-raw`): the body as is, named by the
 * path asked for (`docs/README.md`: name `README.md`, path `docs/README.md`; `api-raw`: `README`,
 * the response does not say).
 */
export function readmeFromRaw(request: Pick<ReadmeRequest, 'name'>, body: Buffer): ReadmeFile {
  const path = request.name ?? UNNAMED_README;
  const name = baseName(path);
  return { name, ext: readmeExtension(name), path, bytes: body };
}

/** Absolute http(s) URLs in text (Markdown, reStructuredText, HTML, plain). */
const ABSOLUTE_URL = /https?:\/\/[^\s<>"'`()[\]{}|\\^]+/gi;
/** Link targets that may be relative: Markdown `](target)`, `[ref]: target`, HTML `href="target"`. */
const LINK_TARGET =
  /\]\(\s*<?([^\s)>]+)|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)|\bhref\s*=\s*["']([^"']+)["']/gim;
/** Punctuation that ends a sentence after a bare URL rather than belonging to it. */
const TRAILING_PUNCTUATION = /[.,;:!?*_~]+$/;

/**
 * The repositories a README links to (for `discover`): absolute `<web>/<o>/<r>` URLs (also
 * `.git` clone URLs), and Markdown/HTML link targets that resolve to one against the web base
 * (`/o/r`). Exactly two path segments: `<web>/<o>/<r>/issues` and users are not repositories.
 * @param text the README decoded as text (any charset mistakes only lose links).
 * @param web the web base (may carry a path prefix).
 * @param self the README's own repository, left out of the result.
 * @returns `owner/repo` references, first occurrence order, each once (case-insensitive).
 * @throws TypeError when `web` is not a valid base URL.
 */
export function readmeRepoLinks(text: string, web: string, self?: RepoRef): RepoRef[] {
  const found = new Map<string, RepoRef>();
  if (self) found.set(self.slug.toLowerCase(), self);
  const add = (href: string): void => {
    const repo = repoOfWebUrl(href.replace(TRAILING_PUNCTUATION, ''), web, { gitSuffix: true });
    if (repo && !found.has(repo.slug.toLowerCase())) found.set(repo.slug.toLowerCase(), repo);
  };
  const hrefs: Array<[number, string]> = [];
  for (const m of text.matchAll(ABSOLUTE_URL)) hrefs.push([m.index, m[0]]);
  for (const m of text.matchAll(LINK_TARGET)) {
    const target = m[1] ?? m[2] ?? m[3];
    // Only root-relative targets: a README's `docs/guide` is relative to the file's own page and
    // never names a repository, while `/o/r` resolves against the web base to one.
    if (target.startsWith('/') && !target.startsWith('//')) hrefs.push([m.index, target]);
  }
  hrefs.sort((a, b) => a[0] - b[0]);
  for (const [, href] of hrefs) add(href);
  if (self) found.delete(self.slug.toLowerCase());
  return [...found.values()];
}
