/**
 * Markdown reduced to its text, for what counts words, identifies the language and fingerprints
 * near-duplicates: link and image targets out (their URLs are not the page's words), images'
 * alt text out, HTML tags of kept tables out, ordered lists' numbers out, backslash escapes
 * undone; other Markdown markers are left (they hold no letter or digit).
 */

/**
 * The text of a Markdown document.
 * @param markdown GFM as `toMarkdown` writes it.
 * @param dropHeadline leave out a first line that is a level-1 heading (`# title`).
 */
export function markdownToText(markdown: string, dropHeadline = false): string {
  let md = markdown;
  if (dropHeadline && md.startsWith('# ')) {
    const end = md.indexOf('\n');
    md = end < 0 ? '' : md.slice(end + 1);
  }
  return md
    .replace(/!\[(?:[^\]\\]|\\.)*\]\((?:[^()\s]|\([^()]*\))*(?:\s+"(?:[^"\\]|\\.)*")?\)/g, '')
    .replace(/\[((?:[^\]\\]|\\.)*)\]\((?:[^()\s]|\([^()]*\))*(?:\s+"(?:[^"\\]|\\.)*")?\)/g, '$1')
    .replace(/<https?:[^>\s]*>/g, '')
    .replace(/<\/?[a-zA-Z][^>]*>/g, ' ')
    .replace(/^( *)\d+\. /gm, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}

/** A character of a word (see {@link countWords}). */
const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;

/** Whether each code unit of the Basic Multilingual Plane is a word character (−1: not yet known). */
const wordUnits = new Int8Array(0x10000).fill(-1);

function isWordChar(codePoint: number): boolean {
  if (codePoint > 0xffff) return WORD_CHAR.test(String.fromCodePoint(codePoint));
  let w = wordUnits[codePoint];
  if (w === -1) {
    w = WORD_CHAR.test(String.fromCharCode(codePoint)) ? 1 : 0;
    wordUnits[codePoint] = w;
  }
  return w === 1;
}

/**
 * Words in a text: runs of letters, digits, marks (Unicode) and `_` — the matches of
 * `/[\p{L}\p{N}\p{M}_]+/gu`, counted by one walk over the code points.
 */
export function countWords(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i) as number;
    if (cp > 0xffff) i++;
    const w = isWordChar(cp);
    if (w && !inWord) n++;
    inWord = w;
  }
  return n;
}
