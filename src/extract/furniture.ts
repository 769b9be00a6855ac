/**
 * Page furniture: the elements of a page that are not its content — comment threads, share bars,
 * related-post lists, navigation, captions, bylines, advertisements, cookie notices — named by
 * their tag, role, id or class.
 */
import type { DomElement } from './content-dom.js';

/**
 * Page furniture named by the usual class and id tokens (whole tokens, lowercased): comment
 * threads (WordPress, Disqus, most themes), share bars, related-post and recommendation lists,
 * newsletter boxes, navigation and pagination, photo captions and credits, bylines and date
 * lines, tag lists, advertisements, page footers (Sphinx's `div.footer`: on a short page the
 * choice took its copyright lines for the content), text for screen readers only and skip links.
 * Removed before the main-content choice, which otherwise may take a thread longer than the
 * article for the article.
 */
const FURNITURE_TOKEN =
  /^(?:(?:wp-block-)?comments?(?:[-_](?:list|area|section|thread|wrapper|container|block|respond|form|widget|box|count|link|links))?|commentlist|disqus_thread|dsq-comments|respond|comment-respond|reply-title|share|sharing|sharedaddy|share[-_](?:bar|buttons|links|tools|this|icons|box)|social[-_](?:share|sharing|links|buttons|icons|media)|addtoany|a2a_kit|sharethis|related|related[-_](?:posts?|articles?|stories|content|links|entries)|jp-relatedposts|yarpp-related|crp_related|more[-_](?:posts|articles|stories)|recommended[-_]?(?:posts|articles|stories)?|newsletter(?:[-_](?:signup|form|box|subscribe))?|subscribe[-_](?:box|form)|post[-_](?:navigation|nav)|nav[-_]links|nav|navbar|navigation|nav-panel|navheader|navfooter|breadcrumbs?|pagination|pager|caption|wp-caption-text|image-caption|photo-caption|media-caption|credit|image-credit|photo-credit|byline|post-meta|entry-meta|article-meta|dateline|timestamp|posted-on|post-date|entry-date|tags|tag-list|post-tags|entry-tags|tags-links|cat-links|categories|more-stories|recirc|trending|most-popular|popular-posts|outbrain|taboola|ob-widget|ad|ads|advert|advertisement|ad-container|ad-slot|sponsored|copyright|footer|site-footer|page-footer|global-footer|screen-reader-text|screen-reader|sr-only|visually-hidden|skip-link|skip-to-content)$/;

/** Elements that are furniture by their tag: navigation, asides, footers, photo captions. */
const FURNITURE_TAGS = new Set(['nav', 'aside', 'footer', 'figcaption']);

/** Text only screen readers get: removed whatever its element, a `<span>` too. */
export const HIDDEN_TEXT =
  /(?:^|\s)(?:sr-only|visually-hidden|screen-reader-text|screenreader-only)(?:\s|$)/i;

/** Elements never removed as furniture (the document, the article's own container, inline code and links). */
export const NEVER_FURNITURE = new Set(['html', 'body', 'main', 'span', 'a', 'code', 'pre']);

/** What shows that an element holds the article itself: never removed as furniture. */
export const ARTICLE_MARKERS = 'h1, main, [role="main"], [itemprop="articleBody"]';

/**
 * Parts of a class or id (split at `-`, `_` and lower-to-upper case changes) that name furniture
 * wherever they stand in it (`image__caption`, `photoCredit`, `author-bio`, `cookie-notice`):
 * photo captions and credits, author boxes, cookie and consent notices. (Measured on the AEB
 * pages: `ad`, `sponsor` and `promo` as parts remove content containers too, so they count only as
 * whole tokens.)
 */
const FURNITURE_PART = new Set([
  'caption',
  'captions',
  'credit',
  'credits',
  'bio',
  'cookie',
  'cookies',
  'consent',
  'gdpr',
]);

/** The parts of a class or id name (see {@link FURNITURE_PART}). */
function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[-_\s]+/);
}

/** Whether a class or id names furniture: the whole of it ({@link FURNITURE_TOKEN}) or a part ({@link FURNITURE_PART}). */
function furnitureName(name: string): boolean {
  if (FURNITURE_TOKEN.test(name.toLowerCase())) return true;
  for (const part of nameParts(name)) if (FURNITURE_PART.has(part)) return true;
  return false;
}

/** Whether an element is furniture by its tag, role, id or class tokens (not yet checked for {@link ARTICLE_MARKERS}). */
export function looksLikeFurniture(el: DomElement): boolean {
  if (FURNITURE_TAGS.has(el.localName) || el.getAttribute('role') === 'navigation') return true;
  const id = el.getAttribute('id');
  if (id !== null && furnitureName(id)) return true;
  const cls = el.getAttribute('class');
  return cls?.split(/\s+/).some((t) => t !== '' && furnitureName(t)) === true;
}
