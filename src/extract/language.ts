/**
 * A page's language: a declared tag normalised to BCP 47, and the language of a text identified
 * by franc (trigram profiles from the Universal Declaration of Human Rights, and scripts), among
 * {@link CANDIDATE_LANGUAGES}, its models indexed by trigram (`trigram-language.ts`). franc's data
 * loads on the first detection (~50 ms, ~11 MB of RSS), so a thread whose pages all declare their
 * language never loads it.
 */
import { type TrigramIdentifier, trigramIdentifier } from './trigram-language.js';

/** Defaults of language identification. */
export const LANGUAGE_DEFAULTS = {
  /** Fewest characters (whitespace collapsed) {@link detectLanguage} identifies: shorter text is a guess. */
  minDetectChars: 50,
  /** Characters per sample of the text: trigram profiles settle well within 500 characters of prose. */
  sampleChars: 500,
  /** Most samples of one text (its start, middle and end), each identified on its own. */
  samples: 3,
  /** Longest language tag read; longer strings are template or script junk, not tags. */
  maxTagChars: 64,
} as const;

/**
 * The languages a text may be identified as: ISO 639-3 codes as franc names them, with the BCP 47
 * primary subtag each is written as (ISO 639-1 where there is one; a macrolanguage's code for
 * franc's individual languages: `arb` → `ar`, `cmn` → `zh`). The 60 languages most written on the
 * web; a wider set makes close neighbours (Scots for English, Galician for Spanish) win on short
 * texts.
 */
export const CANDIDATE_LANGUAGES: Readonly<Record<string, string>> = {
  amh: 'am',
  arb: 'ar',
  azj: 'az',
  bel: 'be',
  bul: 'bg',
  ben: 'bn',
  cat: 'ca',
  ces: 'cs',
  dan: 'da',
  deu: 'de',
  ell: 'el',
  eng: 'en',
  spa: 'es',
  ekk: 'et',
  eus: 'eu',
  pes: 'fa',
  fin: 'fi',
  fra: 'fr',
  guj: 'gu',
  heb: 'he',
  hin: 'hi',
  hrv: 'hr',
  hun: 'hu',
  hye: 'hy',
  ind: 'id',
  isl: 'is',
  ita: 'it',
  jpn: 'ja',
  kat: 'ka',
  kan: 'kn',
  kor: 'ko',
  lao: 'lo',
  lit: 'lt',
  lvs: 'lv',
  mal: 'ml',
  mar: 'mr',
  zlm: 'ms',
  nld: 'nl',
  nob: 'nb',
  pan: 'pa',
  pol: 'pl',
  por: 'pt',
  ron: 'ro',
  rus: 'ru',
  slk: 'sk',
  slv: 'sl',
  als: 'sq',
  srp: 'sr',
  swe: 'sv',
  swh: 'sw',
  tam: 'ta',
  tel: 'te',
  tha: 'th',
  tgl: 'tl',
  tur: 'tr',
  ukr: 'uk',
  urd: 'ur',
  vie: 'vi',
  yor: 'yo',
  cmn: 'zh',
};

let identifier: TrigramIdentifier | null = null;

/** franc's identification among the candidates (`trigram-language.ts`), loaded on first use. */
function detector(): TrigramIdentifier {
  identifier ??= trigramIdentifier(Object.keys(CANDIDATE_LANGUAGES));
  return identifier;
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
 * @param tag a declared language: `<html lang>`, a `Content-Language` value.
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
 * The language a text is written in, by franc among {@link CANDIDATE_LANGUAGES}, or null when it
 * cannot be told.
 *
 * The text (whitespace collapsed) is identified in up to three samples of 500 characters (the
 * start, the middle and the end: a cookie notice or a caption at the start does not decide alone);
 * a language wins when it is franc's answer for more than half of the samples (identification
 * stops as soon as one has that majority). Null for text
 * shorter than {@link LANGUAGE_DEFAULTS}.minDetectChars or without letters. Loads franc on
 * first use; one 5 KB text costs ~1 ms.
 *
 * @param text plain text, e.g. a page's main content.
 * @returns a BCP 47 primary language subtag (`en`, `fr`, `ja`, `nb`).
 */
export function detectLanguage(text: string): string | null {
  const t = collapse(text);
  if (t.length < LANGUAGE_DEFAULTS.minDetectChars || !/\p{L}/u.test(t)) return null;
  const identifier = detector();
  const samples = samplesOf(t);
  const votes = new Map<string, number>();
  for (const sample of samples) {
    const best = identifier.identify(sample);
    const tag = best === null ? undefined : CANDIDATE_LANGUAGES[best];
    if (tag === undefined) continue;
    const count = (votes.get(tag) ?? 0) + 1;
    // a majority already: the samples left cannot change the answer (most pages: two of three)
    if (count * 2 > samples.length) return tag;
    votes.set(tag, count);
  }
  return null;
}

/**
 * A page's language: what it declares (`<html lang>`, `Content-Language`...), normalised; when it
 * declares none that is usable, the language {@link detectLanguage} identifies in its text.
 *
 * @param declared the declared tag, normalised here; null if none.
 * @param text the page's main text, plain.
 * @returns a tag in the form of {@link normalizeLanguageTag}; null when neither is known.
 */
export function pageLanguage(declared: string | null, text: string): string | null {
  return normalizeLanguageTag(declared) ?? detectLanguage(text);
}
