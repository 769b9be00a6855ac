/**
 * A page title without its site name: `"Foo bar | TheHill"` → `"Foo bar"`, when the page or its
 * host shows that `TheHill` names the site. The rule is general (no per-site table): the names
 * come from the page's own metadata, its other titles, and its host's registrable domain.
 */
import { createRequire } from 'node:module';

// tldts (the public-suffix list) loads on the first title that has a separator: ~100 ms of start-up.
type TldtsParse = typeof import('tldts')['parse'];
let tldtsParse: TldtsParse | null = null;
function parseHost(): TldtsParse {
  tldtsParse ??= (createRequire(import.meta.url)('tldts') as typeof import('tldts')).parse;
  return tldtsParse;
}
/** tldts options: input is a bare lowercase hostname; private suffixes (`github.io`) count. */
const TLDTS_OPTIONS = { allowPrivateDomains: true, extractHostname: false } as const;

/**
 * What separates a title's parts: `|`, `-`, `–`, `—`, `::`, `·`, `»`, `/` or `•`, with a space on
 * each side (without the spaces they are part of words: `Spider-Man`, `TCP/IP`; a colon is never
 * one: `Python: the good parts` is a title, not a site name and a title).
 */
const SEPARATOR = / (?:\||-|–|—|::|·|»|\/|•) /g;

/** Evidence of what a page's site is called, for {@link stripSiteName}. */
export interface SiteNameEvidence {
  /**
   * Names the page gives its site (`og:site_name`, JSON-LD `publisher.name` and `WebSite` name,
   * `application-name`, the parts found by {@link siteSuffixes}); empty strings are ignored.
   */
  names: readonly string[];
  /** The page's URL (after redirects): its host and registrable domain count as names too. */
  pageUrl: string;
}

/** One way to cut a title at one separator: the part kept and the part removed. */
export interface Cut {
  kept: string;
  removed: string;
}

/**
 * Lowercase letters and digits only (Unicode-aware, NFKC): `"The Verge"`, `"the-verge"` and
 * `"THEVERGE"` compare equal. How title parts and site names are compared.
 */
export function titleFold(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * A title cut at each separator (see `SEPARATOR`): the trailing parts (removed at the end) and the
 * leading ones, each list longest removed part first; both empty without a separator.
 */
export function titleCuts(title: string): { trailing: Cut[]; leading: Cut[] } {
  const trailing: Cut[] = [];
  const leading: Cut[] = [];
  for (const m of title.matchAll(SEPARATOR)) {
    const before = title.slice(0, m.index);
    const after = title.slice(m.index + m[0].length);
    trailing.push({ kept: before, removed: after });
    leading.unshift({ kept: after, removed: before });
  }
  return { trailing, leading };
}

/**
 * The parts that the page's titles differ by, as site names: if one title is another plus a
 * separator and a part (`"Foo bar | Acme"` and `"Foo bar"`, compared as {@link stripSiteName}
 * compares names), that part (`"Acme"`) is one; so is
 * a leading part (`"Acme - Foo bar"`). This is how a site name shows when `og:title` is the bare
 * headline and `<title>` adds the site.
 *
 * @param titles the page's titles (JSON-LD, Open Graph, Dublin Core, Twitter, `<title>`), cleaned.
 * @returns the parts, each once, in the order found.
 */
export function siteSuffixes(titles: readonly string[]): string[] {
  const found = new Set<string>();
  const folded = new Set(titles.map(titleFold).filter((t) => t !== ''));
  for (const a of new Set(titles)) {
    const { trailing, leading } = titleCuts(a);
    for (const cut of [...trailing, ...leading])
      if (titleFold(cut.removed) !== '' && folded.has(titleFold(cut.kept))) found.add(cut.removed);
  }
  return [...found];
}

/**
 * The names a site is known by: the given ones, the page's host without `www.`, its registrable
 * domain (`theverge.com`, Public Suffix List) and that domain without its suffix (`theverge`).
 */
function knownNames(evidence: SiteNameEvidence): string[] {
  const names = evidence.names.map(titleFold).filter((n) => n !== '');
  let host: string;
  try {
    host = new URL(evidence.pageUrl).hostname;
  } catch {
    return names;
  }
  if (host !== '') names.push(titleFold(host.replace(/^www\./, '')));
  const parsed = parseHost()(host, TLDTS_OPTIONS);
  if (!parsed.isIp) {
    if (parsed.domain) names.push(titleFold(parsed.domain));
    if (parsed.domainWithoutSuffix) names.push(titleFold(parsed.domainWithoutSuffix));
  }
  return names.filter((n) => n !== '');
}

/** Shortest folded name or part compared by containment: shorter ones (`go`, `x`) match by chance. */
const MIN_CONTAINED_CHARS = 3;

/**
 * A title without its site name. The title is cut at a separator (see `SEPARATOR`) and a leading
 * or trailing part removed when it names the site:
 *
 * 1. a trailing part equal to a known name (letters and digits compared, case ignored: `TheHill`,
 *    `The Hill`, `the-hill` are equal) — the longest such part, so `"Foo - News | Acme"` loses
 *    `"News | Acme"` when that is how another title of the page differs;
 * 2. else a leading part equal to a known name;
 * 3. else the last part alone when it contains a known name or is contained in one (`"BBC News"`
 *    and host `bbc.co.uk`), both at least 3 letters or digits, and what remains is longer than
 *    what is removed (a site name is the short part: `"Apple unveils iPhone - Reviews"` on
 *    `apple.com` stays whole);
 * 4. else the first part alone, by the same rule.
 *
 * Known names: `evidence.names`, the host, its registrable domain and that without its suffix
 * (`thehill.com` → `thehill`). At most one part is removed; a title without a separator is never
 * cut, and nothing is removed when what remains has no letter or digit. Loads tldts on the first
 * title with a separator. Never throws.
 *
 * @param title a cleaned title (entities decoded, whitespace collapsed and trimmed).
 * @returns the title, its site name removed when found.
 */
export function stripSiteName(title: string, evidence: SiteNameEvidence): string {
  const { trailing, leading } = titleCuts(title);
  if (trailing.length === 0) return title;
  const names = knownNames(evidence);
  const usable = (c: Cut) => titleFold(c.kept) !== '';
  const equal = (c: Cut) => {
    const r = titleFold(c.removed);
    return usable(c) && names.includes(r);
  };
  const overlapping = (c: Cut) => {
    const r = titleFold(c.removed);
    return (
      usable(c) &&
      r.length >= MIN_CONTAINED_CHARS &&
      c.kept.length > c.removed.length &&
      names.some((n) => n.length >= MIN_CONTAINED_CHARS && (r.includes(n) || n.includes(r)))
    );
  };
  const cut =
    trailing.find(equal) ??
    leading.find(equal) ??
    [trailing[trailing.length - 1]].find(overlapping) ??
    [leading[leading.length - 1]].find(overlapping);
  return cut === undefined ? title : cut.kept;
}
