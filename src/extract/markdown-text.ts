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

/** A word (see {@link countWords}); global, so that `test` walks the text without making matches. */
const WORD = /[\p{L}\p{N}\p{M}_]+/gu;

/** Words in a text: runs of letters, digits and marks (Unicode), as the word count counts them. */
export function countWords(text: string): number {
  let n = 0;
  WORD.lastIndex = 0;
  while (WORD.test(text)) n++;
  return n;
}
