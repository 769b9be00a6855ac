/**
 * Whether an HTML page is the shell of a client-side application (its content and links made by
 * scripts after load), from its markup alone: the `--render auto` test of which pages are loaded
 * in a browser (docs/render.md states these rules). A page without a script is never a shell.
 * One regular-expression pass per rule over the page's source, no DOM: it runs on every HTML page
 * of an `auto` crawl.
 */

/** Which rule found a shell: an empty mount element, a `<noscript>` asking for JavaScript, or script weight. */
export type AppShellRule = 'empty-root' | 'noscript' | 'script-weight';

/**
 * Visible text below which a page with a `<noscript>` asking for JavaScript is a shell, characters
 * (a server-rendered page that also says "enable JavaScript" has more).
 */
export const NOSCRIPT_TEXT_MAX = 1000;

/** Visible text below which a page heavy with script is a shell, characters. */
export const THIN_TEXT_MAX = 500;

/** Links below which a page heavy with script is a shell. */
export const THIN_LINKS_MAX = 5;

/** What an external script (`<script src>`) weighs in the script-weight rule, characters (a bundle). */
export const EXTERNAL_SCRIPT_WEIGHT = 20_000;

/** Script weight per character of visible text above which a thin page is a shell. */
export const SCRIPT_TO_TEXT_RATIO = 5;

/** Ids of the elements frameworks mount into (React, Vue, Next.js, Nuxt, Gatsby, Svelte, Ember). */
const MOUNT_IDS = ['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'ember-app', 'main-app'];

const IDS = `(?:${MOUNT_IDS.join('|')})`;
/** An empty element whose id attribute is exactly one of MOUNT_IDS (quoted or not; not `data-id`, not `rooted`). */
const EMPTY_MOUNT = new RegExp(
  `<(div|main|section|body)\\b[^>]*\\sid\\s*=\\s*(?:"${IDS}"|'${IDS}'|${IDS}(?=[\\s/>]))[^>]*>\\s*(?:<!--[\\s\\S]*?-->\\s*)*</\\1\\s*>`,
  'i',
);
/** Angular's root component, empty. */
const EMPTY_APP_ROOT = /<app-root\b[^>]*>\s*<\/app-root\s*>/i;
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const NOSCRIPT = /<noscript\b[^>]*>([\s\S]*?)<\/noscript\s*>/gi;
const ASKS_FOR_JS =
  /\b(?:enable|turn on|activate|allow)\b[^.<]{0,40}\bjavascript\b|\bjavascript\b[^.<]{0,40}\b(?:required|disabled|needed|must be enabled|is off)\b|\b(?:requires?|needs?)\b[^.<]{0,20}\bjavascript\b/i;
const NOT_TEXT = /<(script|style|noscript|template|svg|head)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const TAG = /<[^>]*>/g;
const LINK = /<a\b[^>]*\bhref\s*=/gi;
/** Script types that are data, not code. */
const DATA_SCRIPT =
  /\btype\s*=\s*["']?(?:application\/(?:ld\+)?json|text\/template|text\/x-template|importmap)/i;

/** What the rules measured on a page, for tests and the log. */
export interface AppShellSignals {
  /** Executable `<script>` elements. */
  scripts: number;
  /** Inline script characters plus {@link EXTERNAL_SCRIPT_WEIGHT} per external script. */
  scriptWeight: number;
  /** Visible text (outside script, style, noscript, template, svg, head), characters, whitespace collapsed. */
  textChars: number;
  /** `<a href>` elements. */
  links: number;
  /** An empty mount element (`<div id="root"></div>`, `<app-root></app-root>`). */
  emptyRoot: boolean;
  /** A `<noscript>` asking for JavaScript. */
  noscriptAsks: boolean;
}

/** Measure the signals of `html` (the page's source, any ASCII-compatible charset). */
export function appShellSignals(html: string): AppShellSignals {
  let scripts = 0;
  let scriptWeight = 0;
  for (const m of html.matchAll(SCRIPT)) {
    const attrs = m[1] ?? '';
    if (DATA_SCRIPT.test(attrs)) continue;
    scripts++;
    scriptWeight += /\bsrc\s*=/i.test(attrs) ? EXTERNAL_SCRIPT_WEIGHT : (m[2] ?? '').length;
  }
  let noscriptAsks = false;
  for (const m of html.matchAll(NOSCRIPT)) {
    if (ASKS_FOR_JS.test((m[1] ?? '').replace(TAG, ' '))) {
      noscriptAsks = true;
      break;
    }
  }
  const text = html.replace(NOT_TEXT, ' ').replace(TAG, ' ').replace(/\s+/g, ' ').trim();
  return {
    scripts,
    scriptWeight,
    textChars: text.length,
    links: html.match(LINK)?.length ?? 0,
    emptyRoot: EMPTY_MOUNT.test(html) || EMPTY_APP_ROOT.test(html),
    noscriptAsks,
  };
}

/**
 * The rule by which `html` is a client-side app's shell, or null when it is not one. With at least
 * one script, in this order: an empty mount element; a `<noscript>` asking for JavaScript and less
 * than {@link NOSCRIPT_TEXT_MAX} characters of text; less than {@link THIN_TEXT_MAX} characters of
 * text, fewer than {@link THIN_LINKS_MAX} links, and script weight at least
 * {@link SCRIPT_TO_TEXT_RATIO} times the text.
 */
export function appShellRule(html: string): AppShellRule | null {
  return ruleOf(appShellSignals(html));
}

/** {@link appShellRule} on measured signals. */
export function ruleOf(s: AppShellSignals): AppShellRule | null {
  if (s.scripts === 0) return null;
  if (s.emptyRoot) return 'empty-root';
  if (s.noscriptAsks && s.textChars < NOSCRIPT_TEXT_MAX) return 'noscript';
  if (
    s.textChars < THIN_TEXT_MAX &&
    s.links < THIN_LINKS_MAX &&
    s.scriptWeight >= SCRIPT_TO_TEXT_RATIO * s.textChars
  ) {
    return 'script-weight';
  }
  return null;
}
