/**
 * A page's language: a declared tag normalised to BCP 47, the language of a text identified by
 * ELD (Nito-ELD, `eld/small`: 60 languages from byte n-grams), and the rule that picks between a
 * declaration and the text. ELD loads on the first detection (~0.5 s, ~45 MB of heap, ~145 MB of
 * RSS per thread: see {@link detectLanguage}), so a thread that never detects never pays for it.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** Defaults of language identification. */
export const LANGUAGE_DEFAULTS = {
  /** Fewest characters (whitespace collapsed) {@link detectLanguage} identifies: shorter text is a guess. */
  minDetectChars: 50,
  /**
   * Fewest characters of text (whitespace collapsed) on which a reliable detection overrules a
   * declared language in {@link pageLanguage}.
   */
  minOverrideChars: 200,
  /** Characters per sample of the text: ELD reads only the first 1,000 UTF-16 units of what it gets. */
  sampleChars: 1000,
  /** Most samples of one text (its start, middle and end), each identified on its own. */
  samples: 3,
  /** Longest language tag read; longer strings are template or script junk, not tags. */
  maxTagChars: 64,
} as const;

type Eld = typeof import('eld/small')['eld'];

let detector: { eld: Eld; languages: ReadonlySet<string> } | null = null;

/**
 * ELD's `small` database, loaded on first use and synchronously: `eld` is ESM-only and exports
 * its entries under the `import` condition alone, so `require('eld/small')` is refused; the entry's
 * file, found with `import.meta.resolve`, loads by `require(esm)` (Node ≥ 20.19). This works from
 * `src/` under vitest, from `dist/` and from the esbuild bundle (which leaves the call to run time,
 * `eld` staying a run-time dependency like linkedom). The module's shared instance is ours alone:
 * its text clean-up (URLs, e-mail addresses, numbers removed before scoring) is switched on once.
 */
function loadDetector(): { eld: Eld; languages: ReadonlySet<string> } {
  if (detector === null) {
    const entry = fileURLToPath(import.meta.resolve('eld/small'));
    const { eld } = createRequire(import.meta.url)(entry) as typeof import('eld/small');
    eld.enableTextCleanup(true);
    const languages = new Set<string>();
    for (const code of Object.values(eld.info().Languages)) {
      const tag = normalizeLanguageTag(code);
      if (tag !== null) languages.add(tag);
    }
    detector = { eld, languages };
  }
  return detector;
}

/**
 * A language tag in canonical form, or null when it is not one.
 *
 * Follows BCP 47 (RFC 5646) as `Intl.getCanonicalLocales` canonicalises it (Unicode UTS #35):
 * `_` read as `-` (`en_US` → `en-US`), case per RFC 5646 §2.1.1 (`EN-gb` → `en-GB`,
 * `zh-hant-tw` → `zh-Hant-TW`), deprecated codes replaced (`iw` → `he`, `in` → `id`; CLDR also
 * maps `tl` → `fil`). A POSIX locale's `.charset` and `@modifier` are dropped (`en_US.UTF-8` →
 * `en-US`). Null for junk: not a well-formed tag (`{{lang}}`, `*`, `en-`), a primary subtag that is
 * not an ISO 639 code of 2–3 letters (`english`, private-use `x-foo`, irregular grandfathered
 * `i-klingon`), `und` (undetermined, no information), or longer than
 * {@link LANGUAGE_DEFAULTS}.maxTagChars. Never throws.
 *
 * @param tag a declared language: `<html lang>`, a `Content-Language` value, ELD's code.
 */
export function normalizeLanguageTag(tag: string | null | undefined): string | null {
  if (typeof tag !== 'string') return null;
  const t = tag
    .trim()
    .replace(/[.@].*$/, '')
    .replace(/_/g, '-');
  if (t === '' || t.length > LANGUAGE_DEFAULTS.maxTagChars) return null;
  let canonical: string;
  try {
    canonical = Intl.getCanonicalLocales(t)[0];
  } catch {
    return null;
  }
  const primary = primarySubtag(canonical);
  return /^[a-z]{2,3}$/.test(primary) && primary !== 'und' ? canonical : null;
}

function primarySubtag(tag: string): string {
  return tag.split('-')[0];
}

/** Whitespace collapsed and trimmed. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Up to {@link LANGUAGE_DEFAULTS}.samples windows of `sampleChars` spread evenly over the text
 * (start, middle, end), each trimmed to whole words, so that a caption or a cookie notice at the
 * start does not decide alone.
 */
function samplesOf(text: string): string[] {
  const { sampleChars, samples } = LANGUAGE_DEFAULTS;
  if (text.length <= sampleChars) return [text];
  const n = Math.min(samples, Math.ceil(text.length / sampleChars));
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = Math.round((i * (text.length - sampleChars)) / (n - 1));
    let s = text.slice(start, start + sampleChars);
    if (start > 0 && text[start - 1] !== ' ') s = s.slice(s.indexOf(' ') + 1);
    if (start + sampleChars < text.length && text[start + sampleChars] !== ' ') {
      const lastSpace = s.lastIndexOf(' ');
      if (lastSpace > 0) s = s.slice(0, lastSpace);
    }
    out.push(s);
  }
  return out;
}

/**
 * The language a text is written in, by ELD (`eld/small`), or null when it cannot be told.
 *
 * The text (whitespace collapsed) is identified in up to three samples of 1,000 characters
 * (ELD reads no more than that of its input): the start, the middle and the end. A language wins
 * when ELD calls it reliable (`isReliable()`: its score near that language's average and clear of
 * the runner-up) in more than half of the samples; otherwise, and for text shorter than
 * {@link LANGUAGE_DEFAULTS}.minDetectChars, the result is null. Loads ELD on first use.
 *
 * Cost (Node 20.20, 2 cores busy with other jobs, load 4–6): the first call ~0.5–0.6 s (loading
 * ELD's 1.6 MB n-gram table), then +44 MB of heap and +145 MB of RSS (+160 MB after a few hundred
 * detections; a second worker thread loading it adds ~80 MB more); one 5 KB text 0.55–1.0 ms
 * (three samples). `eld/extrasmall` would cost ~0.3 s and ~57 MB of RSS, at lower accuracy.
 *
 * @param text plain text, e.g. a page's main content.
 * @returns a BCP 47 primary language subtag in the form of {@link normalizeLanguageTag}: mostly
 *   ISO 639-1 (`en`, `fr`, `ja`), `fil` for Tagalog.
 */
export function detectLanguage(text: string): string | null {
  const t = collapse(text);
  if (t.length < LANGUAGE_DEFAULTS.minDetectChars) return null;
  const { eld } = loadDetector();
  const samples = samplesOf(t);
  const votes = new Map<string, number>();
  for (const sample of samples) {
    const result = eld.detect(sample);
    if (result.language !== '' && result.isReliable())
      votes.set(result.language, (votes.get(result.language) ?? 0) + 1);
  }
  for (const [language, count] of votes)
    if (count * 2 > samples.length) return normalizeLanguageTag(language);
  return null;
}

/**
 * Languages that ELD cannot reliably tell apart from one another, or that are one language under
 * two codes: a detection inside a group never overrules a declaration from the same group
 * (Norwegian `no`/Bokmål `nb`/Nynorsk `nn`; Croatian, Serbian in Latin script (ELD knows only
 * Cyrillic Serbian) and Bosnian; Malay and Indonesian, which ELD does not know).
 */
const CLOSE_LANGUAGES: readonly (readonly string[])[] = [
  ['no', 'nb', 'nn'],
  ['hr', 'sr', 'bs'],
  ['ms', 'id'],
];

function closeTo(primary: string): readonly string[] {
  return CLOSE_LANGUAGES.find((group) => group.includes(primary)) ?? [primary];
}

/**
 * A page's language from what it declares and what its text shows.
 *
 * The declared language wins, except when the text (whitespace collapsed) has at least
 * {@link LANGUAGE_DEFAULTS}.minOverrideChars characters, {@link detectLanguage} identifies it
 * reliably, and the identified primary language differs from the declared one: then the
 * detection wins. Many sites ship a template `lang="en"` on pages in other languages; a reliable
 * detection over 200 characters is rarely wrong, while short text is. A declaration is never
 * overruled by a language close to it (`CLOSE_LANGUAGES`: `nb` vs `no`, `hr`/`sr`/`bs`, `ms`/`id`),
 * nor when ELD cannot detect the declared language at all (`gl`, `af`, `cy`...): it would answer
 * with the nearest language it knows. With no usable declaration, the detection (which may be
 * null) is the answer. ELD is loaded only when a detection is needed.
 *
 * @param declared the declared tag (`<html lang>`, `Content-Language`...), normalised here; null if none.
 * @param text the page's main text, plain.
 * @returns a tag in the form of {@link normalizeLanguageTag}: the declared one in full
 *   (`en-GB`), or the detected primary language (`fr`); null when neither is known.
 */
export function pageLanguage(declared: string | null, text: string): string | null {
  const tag = normalizeLanguageTag(declared);
  if (tag === null) return detectLanguage(text);
  if (collapse(text).length < LANGUAGE_DEFAULTS.minOverrideChars) return tag;
  const group = closeTo(primarySubtag(tag));
  const { languages } = loadDetector();
  if (!group.some((l) => languages.has(l))) return tag;
  const detected = detectLanguage(text);
  return detected === null || group.includes(primarySubtag(detected)) ? tag : detected;
}
