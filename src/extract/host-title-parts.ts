/**
 * The site names a crawl learns from the titles of a host's pages: a part that ends (or starts)
 * the `<title>` of several pages of one host, each time beside a different rest, names the site
 * (`"Tutorial — Python 3.11 documentation"`, `"Library — Python 3.11 documentation"`, …; `"Acme »
 * Post one"`, `"Acme » Post two"`, …). A page rarely states it otherwise: Sphinx, MkDocs and
 * many blogs have no `og:site_name`. What `stripSiteName` (page-title.ts) then removes.
 */
import { titleCuts, titleFold } from './page-title.js';

/** Pages of a host, each with a different rest, whose titles must share a part for it to name the site. */
export const PAGES_TO_LEARN = 3;

/** Most hosts remembered (least recently seen forgotten first). */
const MAX_HOSTS = 1000;
/**
 * Most candidate parts remembered per host. When it is full, the parts seen on one page only are
 * forgotten (each post's own title, on a blog), so a part shared later can still be learned.
 */
const MAX_CANDIDATES = 64;
/** Most names learned per host. */
const MAX_NAMES = 8;
/** Longest title looked at, UTF-16 code units: past it, a `<title>` is not a title. */
const MAX_TITLE = 300;

interface HostParts {
  /** Candidate part (folded) → the folded rests seen beside it, at most {@link PAGES_TO_LEARN}. */
  candidates: Map<string, Set<string>>;
  /** Parts that named the site, as written in the title that completed the evidence. */
  names: string[];
}

/**
 * Per host, the title parts seen so far and the site names learned from them. Bounded: at most
 * 1,000 hosts × 64 candidate parts × 3 rests, whatever the crawl's size. Not persisted: a crawl
 * process learns again from a host's first pages after a restart.
 */
export class HostTitleParts {
  private readonly hosts = new Map<string, HostParts>();

  /**
   * Note a page's `<title>` (entities decoded). Titles without a separator (see page-title.ts),
   * empty or longer than 300 characters teach nothing.
   * @param host the page's host (`new URL(finalUrl).host`).
   */
  observe(host: string, title: string | null): void {
    if (title === null || title.length > MAX_TITLE) return;
    const clean = title.replace(/\s+/g, ' ').trim();
    const { trailing, leading } = titleCuts(clean);
    if (trailing.length === 0) return;
    const parts = this.partsOf(host, true) as HostParts;
    for (const cut of [...trailing, ...leading]) {
      const part = titleFold(cut.removed);
      const rest = titleFold(cut.kept);
      if (part === '' || rest === '') continue;
      let rests = parts.candidates.get(part);
      if (rests === undefined) {
        if (parts.candidates.size >= MAX_CANDIDATES) forgetOneOffs(parts.candidates);
        if (parts.candidates.size >= MAX_CANDIDATES) continue;
        rests = new Set();
        parts.candidates.set(part, rests);
      }
      if (rests.size >= PAGES_TO_LEARN) continue; // already a name
      rests.add(rest);
      if (rests.size === PAGES_TO_LEARN && parts.names.length < MAX_NAMES) parts.names.push(cut.removed);
    }
  }

  /** The site names learned for `host` so far (none until {@link PAGES_TO_LEARN} titles share a part). */
  namesOf(host: string): readonly string[] {
    return this.partsOf(host, false)?.names ?? [];
  }

  private partsOf(host: string, create: boolean): HostParts | undefined {
    let parts = this.hosts.get(host);
    if (parts !== undefined) {
      // least recently seen first: move it to the end
      this.hosts.delete(host);
      this.hosts.set(host, parts);
      return parts;
    }
    if (!create) return undefined;
    if (this.hosts.size >= MAX_HOSTS) this.hosts.delete(this.hosts.keys().next().value as string);
    parts = { candidates: new Map(), names: [] };
    this.hosts.set(host, parts);
    return parts;
  }
}

/** Forget the candidate parts seen beside one rest only. */
function forgetOneOffs(candidates: Map<string, Set<string>>): void {
  for (const [part, rests] of candidates) if (rests.size === 1) candidates.delete(part);
}
