/**
 * The page requisites of an HTML document (wget `-p`): what a browser loads to show it — images
 * (`img` `src`/`srcset`, `picture`'s `source srcset`, `input type=image`, `video poster`),
 * stylesheets and icons (`link rel=stylesheet|icon|apple-touch-icon|mask-icon|preload|modulepreload`),
 * scripts (`script src`), and the `url(...)`/`@import` of `<style>` elements and `style`
 * attributes. Links to other pages are not requisites (see `html.ts` for those).
 */
import { Parser } from 'htmlparser2';
import { canonicalize } from '../url/canonicalize.js';
import { cssUrls } from './css-urls.js';

/** `rel` tokens of a `<link>` whose `href` is a requisite. */
const REQUISITE_RELS = new Set([
  'stylesheet',
  'icon',
  'shortcut',
  'apple-touch-icon',
  'apple-touch-icon-precomposed',
  'mask-icon',
  'preload',
  'modulepreload',
]);

/**
 * The URLs of a `srcset`, as HTML §4.8.4.3.1 ("parse a srcset attribute") splits it: skip
 * whitespace and commas, a URL runs to whitespace (trailing commas end it), then descriptors
 * (`2x`, `480w`) run to the next comma outside parentheses.
 */
export function srcsetUrls(srcset: string): string[] {
  const out: string[] = [];
  const n = srcset.length;
  const space = (c: string) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  let i = 0;
  while (i < n) {
    while (i < n && (space(srcset[i]) || srcset[i] === ',')) i++;
    const start = i;
    while (i < n && !space(srcset[i])) i++;
    let url = srcset.slice(start, i);
    if (url === '') break;
    if (url.endsWith(',')) url = url.replace(/,+$/, '');
    else {
      let depth = 0;
      while (i < n && (srcset[i] !== ',' || depth > 0)) {
        if (srcset[i] === '(') depth++;
        else if (srcset[i] === ')' && depth > 0) depth--;
        i++;
      }
    }
    if (url !== '') out.push(url);
  }
  return out;
}

/**
 * The requisites of one HTML document: canonical absolute http(s) URLs, deduplicated, in document
 * order. The first `<base href>` is the base of those after it (as `extractHtml` does). Never throws.
 * @param html the decoded document text.
 * @param pageUrl the document's URL (after redirects).
 */
export function pageRequisites(html: string, pageUrl: string): string[] {
  let base = pageUrl;
  let baseSeen = false;
  let inStyle = false;
  let styleText = '';
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (href: string | undefined): void => {
    if (href === undefined || href.trim() === '') return;
    const url = canonicalize(href.trim(), base);
    if (url !== null && !seen.has(url)) {
      seen.add(url);
      out.push(url);
    }
  };
  const addCss = (css: string): void => {
    for (const url of cssUrls(css, base)) add(url);
  };
  const parser = new Parser(
    {
      onopentag(name, a) {
        switch (name) {
          case 'base':
            if (!baseSeen && a.href !== undefined) {
              baseSeen = true;
              base = canonicalize(a.href, pageUrl) ?? base;
            }
            break;
          case 'img':
            add(a.src);
            if (a.srcset !== undefined) for (const u of srcsetUrls(a.srcset)) add(u);
            break;
          case 'source':
            // In <picture> (images) and <video>/<audio>: only image candidates are requisites.
            if (a.srcset !== undefined) for (const u of srcsetUrls(a.srcset)) add(u);
            break;
          case 'input':
            if ((a.type ?? '').toLowerCase() === 'image') add(a.src);
            break;
          case 'video':
            add(a.poster);
            break;
          case 'script':
            add(a.src);
            break;
          case 'link':
            if (
              a.rel
                ?.toLowerCase()
                .split(/\s+/)
                .some((t) => REQUISITE_RELS.has(t))
            ) {
              add(a.href);
            }
            break;
          case 'style':
            inStyle = true;
            styleText = '';
            break;
        }
        if (a.style?.includes('url(')) addCss(a.style);
      },
      ontext(text) {
        if (inStyle) styleText += text;
      },
      onclosetag(name) {
        if (name === 'style' && inStyle) {
          inStyle = false;
          addCss(styleText);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  try {
    parser.write(html);
    parser.end();
  } catch {
    // htmlparser2 is not known to throw; whatever was found is kept.
  }
  return out;
}
