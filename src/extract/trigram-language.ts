/**
 * franc's language identification (franc 6: its script expressions and its trigram models, from
 * the Universal Declaration of Human Rights) with the models indexed by trigram, so that a text's
 * language costs one look-up per distinct trigram of the text instead of one per trigram and
 * candidate language (franc's `getDistance` loop: about 1 ms of a docs page's 5). The answer is
 * franc's own: the script that most of the text's characters are written in, then, among the
 * candidate languages of that script, the one at the least distance (franc's measure, below),
 * ties to the first in franc's order. A test checks it against `francAll` on texts of every
 * script. franc's files load on first use, synchronously (see `language.ts`).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** franc's longest sample, characters: longer text is cut there. */
const MAX_LENGTH = 2048;
/** franc's distance for a trigram of the text that a language's model lacks. */
const MAX_DIFFERENCE = 300;

/** The models of one script's candidate languages, by trigram ({@link trigramKey}). */
interface ScriptIndex {
  /** The candidate languages written in this script, in franc's order. */
  languages: string[];
  /** For each trigram: `[language index, rank in that language's model, …]` pairs. */
  byTrigram: Map<TrigramKey, number[]>;
}

/** A trigram as a map key: a small integer when its three code units are under 1024, else the string. */
type TrigramKey = number | string;

/** The key of the trigram of `s` at `i` (see {@link TrigramKey}: no string is made for most text). */
function trigramKey(s: string, i: number): TrigramKey {
  const a = s.charCodeAt(i);
  const b = s.charCodeAt(i + 1);
  const c = s.charCodeAt(i + 2);
  return (a | b | c) < 1024 ? (a << 20) | (b << 10) | c : s.slice(i, i + 3);
}

/** A UTF-16 surrogate code unit. */
const SURROGATE = /[\uD800-\uDFFF]/;

/** An identifier over a fixed set of candidate languages. */
export interface TrigramIdentifier {
  /**
   * The language of `text` as franc's `francAll(text, { only, minLength: 1 })[0][0]` answers it
   * (an ISO 639-3 code), or null where franc answers `und`.
   */
  identify(text: string): string | null;
}

type FrancData = Record<string, Record<string, string>>;
type FrancExpressions = Record<string, RegExp>;

/** franc's `data.js` and `expressions.js`, next to its entry (the package has no `exports` map). */
function francFiles(): { data: FrancData; expressions: FrancExpressions } {
  const dir = path.dirname(fileURLToPath(import.meta.resolve('franc')));
  const load = createRequire(import.meta.url);
  const { data } = load(path.join(dir, 'data.js')) as { data: FrancData };
  const { expressions } = load(path.join(dir, 'expressions.js')) as { expressions: FrancExpressions };
  return { data, expressions };
}

/**
 * franc's clean-up of a text before its trigrams (trigram-utils 2): ASCII punctuation, symbols and
 * digits (U+0021–U+0040) as spaces, whitespace collapsed and trimmed, lowercased; then padded with
 * a space at each end.
 */
function padded(text: string): string {
  const clean = text
    .replace(/[\u0021-\u0040]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  return ` ${clean} `;
}

/**
 * An identifier among `only` (ISO 639-3 codes as franc names them).
 * Builds the index of the candidates' models (a few ms, once).
 */
export function trigramIdentifier(only: readonly string[]): TrigramIdentifier {
  const { data, expressions } = francFiles();
  const allowed = new Set(only);
  const scripts = new Map<string, ScriptIndex>();
  for (const [script, models] of Object.entries(data)) {
    const index: ScriptIndex = { languages: [], byTrigram: new Map() };
    for (const [name, model] of Object.entries(models)) {
      if (!allowed.has(name)) continue;
      const i = index.languages.push(name) - 1;
      const trigrams = model.split('|');
      const seen = new Set<TrigramKey>();
      // franc keeps a trigram's first (lowest) rank when its model lists it twice
      for (let rank = 0; rank < trigrams.length; rank++) {
        const t = trigrams[rank].length === 3 ? trigramKey(trigrams[rank], 0) : trigrams[rank];
        if (seen.has(t)) continue;
        seen.add(t);
        const pairs = index.byTrigram.get(t);
        if (pairs === undefined) index.byTrigram.set(t, [i, rank]);
        else pairs.push(i, rank);
      }
    }
    scripts.set(script, index);
  }
  const expressionList = Object.entries(expressions);
  const scriptNames = expressionList.map(([name]) => name);
  // Which scripts' expressions match each code unit, as bits (−1: not yet known). franc counts
  // each expression's matches in the text; outside surrogates, each is one code unit.
  const single = expressionList.map(([, re]) => new RegExp(`^(?:${re.source})$`));
  const masks = expressionList.length <= 31 ? new Int32Array(0x10000).fill(-1) : null;
  const maskOf = (unit: number): number => {
    let m = (masks as Int32Array)[unit];
    if (m === -1) {
      m = 0;
      const ch = String.fromCharCode(unit);
      for (let k = 0; k < single.length; k++) if (single[k].test(ch)) m |= 1 << k;
      (masks as Int32Array)[unit] = m;
    }
    return m;
  };
  const counts = new Int32Array(expressionList.length);
  /** Matches of each script's expression in `value`: franc's regular expressions (`match`). */
  const countScripts = (value: string): Int32Array => {
    counts.fill(0);
    if (masks === null || SURROGATE.test(value)) {
      for (let k = 0; k < expressionList.length; k++)
        counts[k] = value.match(expressionList[k][1])?.length ?? 0;
      return counts;
    }
    for (let i = 0; i < value.length; i++) {
      let m = maskOf(value.charCodeAt(i));
      while (m !== 0) {
        counts[31 - Math.clz32(m & -m)]++;
        m &= m - 1;
      }
    }
    return counts;
  };

  return {
    identify(text: string): string | null {
      const value = text.slice(0, MAX_LENGTH);
      if (value.length === 0) return null;
      // the script most of the characters are in (franc's getTopScript: first wins ties)
      const scriptCounts = countScripts(value);
      let top: string | undefined;
      let topShare = -1;
      for (let k = 0; k < scriptNames.length; k++) {
        const share = scriptCounts[k] / value.length || 0;
        if (share > topShare) {
          topShare = share;
          top = scriptNames[k];
        }
      }
      if (top === undefined) return null;
      const index = scripts.get(top);
      // a script of one language (Hangul, Thai…) is that language
      if (index === undefined) return topShare === 0 || !allowed.has(top) ? null : top;
      if (index.languages.length === 0) return null;
      // the text's trigrams and their counts
      const s = padded(value);
      const counts = new Map<TrigramKey, number>();
      for (let i = 0; i + 3 <= s.length; i++) {
        const t = trigramKey(s, i);
        counts.set(t, (counts.get(t) ?? 0) + 1);
      }
      // franc's distance to a model: for each distinct trigram of the text, |count − rank − 1|
      // when the model has it, else MAX_DIFFERENCE. Summed here as MAX_DIFFERENCE per trigram
      // less what each model's matches save.
      const saved = new Float64Array(index.languages.length);
      for (const [t, count] of counts) {
        const pairs = index.byTrigram.get(t);
        if (pairs === undefined) continue;
        for (let k = 0; k < pairs.length; k += 2)
          saved[pairs[k]] += MAX_DIFFERENCE - Math.abs(count - pairs[k + 1] - 1);
      }
      let best = 0;
      for (let i = 1; i < saved.length; i++) if (saved[i] > saved[best]) best = i;
      return index.languages[best];
    },
  };
}
