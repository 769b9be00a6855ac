/**
 * The links of README.md and docs/*.md: every relative link resolves to a file of the repository,
 * every `#anchor` to a heading of its page (GitHub's heading ids), nothing points outside the
 * repository, and every page of docs/ is reachable from the README.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const pages = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** A page's text outside fenced code blocks and inline code spans. */
function prose(md: string): string {
  return md
    .replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\S\n]*$/gm, '')
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, '');
}

/** The heading ids GitHub gives a page: its heading text lowercased, punctuation out, spaces as hyphens, repeats numbered. */
function headingIds(md: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const text = md.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1[^\S\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const plain = m[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .replace(/\*\*?|__/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** The link targets of a page: `[text](target)` and `![alt](target)`, outside code. */
function links(md: string): string[] {
  return [...prose(md).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]);
}

describe('links in README.md and docs/', () => {
  it('finds the pages and their links', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/cli.md', 'docs/content.md']));
    expect(links(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
    // the id rules, on GitHub's own examples
    expect(
      headingIds(
        "# A URL's path, step by step\n## `collector run`\n## Rounds (`interval`)\n## Rounds (`interval`)",
      ),
    ).toEqual(new Set(['a-urls-path-step-by-step', 'collector-run', 'rounds-interval', 'rounds-interval-1']));
    expect(links('see [a](b.md#c) and `[x](not-a-link)`\n```\n[y](nor-this)\n```\n![i](p.png "t")')).toEqual([
      'b.md#c',
      'p.png',
    ]);
  });

  for (const page of pages) {
    it(`${page}: every relative link and anchor resolves inside the repository`, () => {
      const md = fs.readFileSync(path.join(root, page), 'utf8');
      for (const target of links(md)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved =
          file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
        expect(
          path.relative(root, resolved).startsWith('..'),
          `${page}: ${target} leaves the repository`,
        ).toBe(false);
        expect(fs.existsSync(resolved), `${page}: ${target} does not exist`).toBe(true);
        if (anchor !== undefined && resolved.endsWith('.md')) {
          const ids = headingIds(fs.readFileSync(resolved, 'utf8'));
          expect(
            ids.has(anchor),
            `${page}: ${target}: no heading #${anchor} in ${path.relative(root, resolved)}`,
          ).toBe(true);
        }
      }
    });
  }

  it('links every page of docs/ from the README', () => {
    const readme = links(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).map((t) => t.split('#')[0]);
    for (const page of pages.filter((p) => p !== 'README.md')) expect(readme, page).toContain(page);
  });
});
