/**
 * The URLs a stylesheet loads: `@import` rules and `url(...)` values (fonts, background images,
 * cursors), resolved against the stylesheet's URL — the page requisites of CSS (wget `-p`).
 */
import { canonicalize } from '../url/canonicalize.js';

/** Comments, then `@import "x"` / `@import 'x'` (without url()), then `url(x)`, `url("x")`, `url('x')`. */
const COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/g;
const IMPORT_STRING = /@import\s+(?:"([^"\n]*)"|'([^'\n]*)')/gi;
const URL_VALUE =
  /\burl\(\s*(?:"([^"\n]*)"|'([^'\n]*)'|((?:\\[0-9a-fA-F]{1,6}\s?|\\[^\n0-9a-fA-F]|[^)"'\s\\])*))\s*\)/gi;

/** CSS escapes in a URL (`\28` → `(`, `\"` → `"`), as CSS Syntax §4.3.7 consumes them. */
function unescapeCss(s: string): string {
  if (s.indexOf('\\') < 0) return s;
  return s.replace(/\\([0-9a-fA-F]{1,6})\s?|\\(.)/g, (_m, hex: string | undefined, ch: string | undefined) =>
    hex !== undefined
      ? String.fromCodePoint(Math.min(Number.parseInt(hex, 16), 0x10ffff) || 0xfffd)
      : (ch ?? ''),
  );
}

/**
 * The http(s) URLs a stylesheet refers to, canonical, deduplicated, in order of appearance
 * (`data:` URIs and fragments-only references such as `url(#clip)` are left out). Never throws.
 * @param css the stylesheet's text (or a `<style>` element's, or a `style` attribute's).
 * @param baseUrl what relative URLs resolve against: the stylesheet's URL (for inline CSS, the
 *   page's base URL).
 */
export function cssUrls(css: string, baseUrl: string): string[] {
  const text = css.replace(COMMENT, ' ');
  const found: Array<{ at: number; ref: string }> = [];
  for (const m of text.matchAll(IMPORT_STRING)) found.push({ at: m.index, ref: m[1] ?? m[2] });
  for (const m of text.matchAll(URL_VALUE)) found.push({ at: m.index, ref: m[1] ?? m[2] ?? m[3] });
  found.sort((a, b) => a.at - b.at);
  const out: string[] = [];
  const seen = new Set<string>();
  for (const { ref } of found) {
    const raw = unescapeCss(ref.trim());
    if (raw === '' || raw.startsWith('#')) continue;
    const url = canonicalize(raw, baseUrl);
    if (url !== null && !seen.has(url)) {
      seen.add(url);
      out.push(url);
    }
  }
  return out;
}
