import { describe, expect, it } from 'vitest';
import {
  ARTICLE_TYPE,
  deref,
  firstOfType,
  readJsonLd,
  WEB_PAGE_TYPE,
  WEB_SITE_TYPE,
} from '../../src/extract/json-ld.js';
import { parseHtmlDocument } from '../../src/extract/light-dom-parse.js';

function graphOf(...blocks: string[]) {
  const html = blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join('');
  return readJsonLd(parseHtmlDocument(`<html><head>${html}</head></html>`));
}

describe('readJsonLd', () => {
  it('collects top-level nodes, list members, @graph members (nested too) and mainEntity, in order; a bare @graph container is no node', () => {
    const g = graphOf(
      JSON.stringify([{ '@type': 'A' }, { '@type': 'B' }]),
      JSON.stringify({
        '@context': 'https://schema.org',
        '@graph': [{ '@type': 'C', mainEntity: { '@type': 'D' } }, { '@graph': { '@type': 'E' } }],
      }),
    );
    expect(g.nodes.map((n) => n['@type'])).toEqual(['A', 'B', 'C', 'D', 'E']);
  });

  it('indexes nodes by @id, the first of each, never a bare reference', () => {
    const g = graphOf(
      JSON.stringify({
        '@graph': [
          { '@id': '#x' },
          { '@id': '#x', '@type': 'Person', name: 'First' },
          { '@id': '#x', '@type': 'Person', name: 'Second' },
        ],
      }),
    );
    expect(g.byId.get('#x')?.name).toBe('First');
  });

  it('reads the type attribute case-insensitively, with parameters; skips other scripts', () => {
    const doc = parseHtmlDocument(
      `<script type=" Application/LD+JSON; charset=utf-8">{"@type":"A"}</script><script type="text/javascript">{"@type":"B"}</script><script>{"@type":"C"}</script>`,
    );
    expect(readJsonLd(doc).nodes.map((n) => n['@type'])).toEqual(['A']);
  });

  it('skips what does not parse, and JSON values that are not objects', () => {
    const g = graphOf('{ nope', '"a string"', '[1, null, {"@type": "A"}]', '');
    expect(g.nodes.map((n) => n['@type'])).toEqual(['A']);
  });
});

describe('firstOfType', () => {
  const g = graphOf(
    JSON.stringify({
      '@graph': [
        { '@type': 'WebPageElement' },
        { '@type': 'ItemPage', name: 'page' },
        { '@type': ['Thing', 'https://schema.org/NewsArticle'], name: 'news' },
        { '@type': 'schema:WebSite', name: 'site' },
        { '@type': 'DiscussionForumPosting', name: 'post' },
      ],
    }),
  );

  it('matches the local name of any of a node’s types', () => {
    expect(firstOfType(g, ARTICLE_TYPE)?.name).toBe('news');
    expect(firstOfType(g, WEB_PAGE_TYPE)?.name).toBe('page');
    expect(firstOfType(g, WEB_SITE_TYPE)?.name).toBe('site');
    expect(firstOfType(g, /^Recipe$/)).toBeNull();
  });
});

describe('deref', () => {
  const g = graphOf(JSON.stringify({ '@graph': [{ '@id': '#p', '@type': 'Person', name: 'Jane' }] }));

  it('follows references, keeping the reference’s own properties', () => {
    expect(deref(g, { '@id': '#p' })).toEqual({ '@id': '#p', '@type': 'Person', name: 'Jane' });
    expect(deref(g, { '@id': '#p', name: 'Jane D.' })).toMatchObject({ name: 'Jane D.' });
    expect(deref(g, [{ '@id': '#p' }, 'John'])).toEqual([
      { '@id': '#p', '@type': 'Person', name: 'Jane' },
      'John',
    ]);
  });

  it('returns anything else as is', () => {
    expect(deref(g, { '@id': '#unknown' })).toEqual({ '@id': '#unknown' });
    expect(deref(g, 'Jane')).toBe('Jane');
    expect(deref(g, null)).toBeNull();
  });
});
