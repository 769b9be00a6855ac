/**
 * Scoring of the Article Extraction Benchmark (scrapinghub/article-extraction-benchmark,
 * `evaluate.py`), re-implemented without the bootstrap: texts become `\w+` tokens, tokens become
 * 4-token shingles counted as multisets, and each page's TP/FP/FN are divided by their sum so
 * every page weighs the same. Corpus precision and recall are means over the pages where they
 * are defined; F1 is the harmonic mean of those two means (not a mean of per-page F1).
 * Pure functions, no I/O.
 */

/**
 * Python's `\w` on a str: a character is a word character when `str.isalnum()` is true (letters
 * of categories L*, numbers of categories N*) or it is `_`. Combining marks (M*) are not word
 * characters in Python, so they split words here too. Checked against Python 3.11 on the 1,267
 * texts of the benchmark (gold and the six reference outputs): all tokenize identically; with
 * `\p{M}` added, 28 would not.
 */
const TOKEN = /[\p{L}\p{N}_]+/gu;

/** Shingle length of the benchmark (tokens per shingle). */
export const SHINGLE_TOKENS = 4;

/**
 * The tokens of a text: runs of word characters, case kept, everything else a separator.
 * @param {string | null | undefined} text
 * @returns {string[]}
 */
export function tokenize(text) {
  return text ? (text.match(TOKEN) ?? []) : [];
}

/**
 * The shingles of a token list as a multiset: every run of `n` consecutive tokens, counted. A list
 * shorter than `n` (but not empty) is one shorter shingle; an empty list has none. A key is the
 * tokens joined by a space (tokens never contain one).
 * @param {readonly string[]} tokens
 * @param {number} [n] tokens per shingle, default {@link SHINGLE_TOKENS}
 * @returns {Map<string, number>} shingle → count
 */
export function shingles(tokens, n = SHINGLE_TOKENS) {
  const counts = new Map();
  const last = Math.max(1, tokens.length - n + 1);
  for (let i = 0; i < last && tokens.length > 0; i++) {
    const key = tokens.slice(i, i + n).join(' ');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * @typedef {object} PageScore
 * @property {number} tp true-positive shingles ÷ (tp + fp + fn); 0 when both texts are empty
 * @property {number} fp predicted shingles beyond the gold ones, normalised the same way
 * @property {number} fn gold shingles missing from the prediction, normalised the same way
 * @property {number} precision tp/(tp+fp); 1 when fp = fn = 0, 0 when tp = fp = 0
 * @property {number} recall tp/(tp+fn); 1 when fp = fn = 0, 0 when tp = fn = 0
 * @property {boolean} exact the two token sequences are equal (the benchmark's accuracy)
 * @property {number} goldWords tokens of the gold text
 * @property {number} predictedWords tokens of the predicted text
 */

/**
 * One page's score: shingle TP/FP/FN between the gold and the predicted text, normalised by their
 * sum, and precision and recall with the benchmark's special cases.
 * @param {string} gold the gold `articleBody`
 * @param {string} predicted the extractor's text ('' when it found nothing)
 * @returns {PageScore}
 */
export function scorePage(gold, predicted) {
  const goldTokens = tokenize(gold);
  const predictedTokens = tokenize(predicted);
  const g = shingles(goldTokens);
  const p = shingles(predictedTokens);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const [key, gc] of g) {
    const pc = p.get(key) ?? 0;
    tp += Math.min(gc, pc);
    fn += Math.max(0, gc - pc);
  }
  for (const [key, pc] of p) fp += Math.max(0, pc - (g.get(key) ?? 0));
  const sum = tp + fp + fn;
  if (sum > 0) {
    tp /= sum;
    fp /= sum;
    fn /= sum;
  }
  const perfect = fp === 0 && fn === 0;
  return {
    tp,
    fp,
    fn,
    precision: perfect ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp),
    recall: perfect ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn),
    exact:
      goldTokens.length === predictedTokens.length && goldTokens.every((t, i) => t === predictedTokens[i]),
    goldWords: goldTokens.length,
    predictedWords: predictedTokens.length,
  };
}

/**
 * @typedef {object} CorpusScore
 * @property {number} precision mean page precision over the pages with tp + fp > 0 (a prediction); NaN if none
 * @property {number} recall mean page recall over the pages with tp + fn > 0 (a gold text); NaN if none
 * @property {number} f1 harmonic mean of `precision` and `recall` (0 when both are 0)
 * @property {number} accuracy share of pages whose predicted tokens equal the gold tokens
 * @property {Array<{ id: string } & PageScore>} pages every gold page, in the gold's order
 */

/**
 * The benchmark's corpus scores. Every id of `gold` is scored; an id missing from `predicted` (or
 * mapped to null) counts as an empty prediction, as the benchmark asks its submitters to write.
 * @param {Map<string, string> | Record<string, string>} gold id → gold text
 * @param {Map<string, string | null> | Record<string, string | null>} predicted id → predicted text
 * @returns {CorpusScore}
 */
export function scoreCorpus(gold, predicted) {
  const goldEntries = gold instanceof Map ? [...gold] : Object.entries(gold);
  const predictedOf = predicted instanceof Map ? (id) => predicted.get(id) : (id) => predicted[id];
  const pages = goldEntries.map(([id, text]) => ({ id, ...scorePage(text ?? '', predictedOf(id) ?? '') }));
  const precision = mean(pages.filter((s) => s.tp + s.fp > 0).map((s) => s.precision));
  const recall = mean(pages.filter((s) => s.tp + s.fn > 0).map((s) => s.recall));
  return {
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    accuracy: mean(pages.map((s) => (s.exact ? 1 : 0))),
    pages,
  };
}

/** @param {number[]} xs */
function mean(xs) {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}
