import { describe, expect, it } from 'vitest';
import {
  ARTICLE_DEFAULTS,
  compileArticlePatterns,
  extractArticle,
  isArticleUrl,
} from '../../src/extract/article.js';

const PAGE = 'http://blog.example/2024/05/my-post/';
const PROSE = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. '.repeat(12)}</p>`;

function blogPage(head: string, article: string): string {
  return `<!doctype html><html lang="en"><head><title>My post | Blog</title>${head}</head><body>
    <nav><a href="/">Home</a> <a href="/about/">About</a> <a href="/archive/">Archive</a></nav>
    <article>${article}</article>
    <aside><h3>Related</h3><a href="/2023/01/old/">Old</a></aside>
    <footer>(c) 2024 Blog <a href="/privacy/">Privacy</a></footer></body></html>`;
}

describe('articlePatterns', () => {
  const patterns = compileArticlePatterns(['/\\d{4}/\\d{2}/', '/blog/', '/post/', '/tutorial/']);

  it('match the path and query, not the host', () => {
    expect(isArticleUrl('http://x.example/2024/05/slug/', patterns)).toBe(true);
    expect(isArticleUrl('http://x.example/blog/hello', patterns)).toBe(true);
    expect(isArticleUrl('http://x.example/?p=/post/1', patterns)).toBe(true);
    expect(isArticleUrl('http://x.example/about/', patterns)).toBe(false);
    expect(isArticleUrl('http://post.example/', compileArticlePatterns(['post']))).toBe(false);
    expect(isArticleUrl('not a url', patterns)).toBe(false);
    expect(isArticleUrl('http://x.example/blog/', [])).toBe(false);
  });

  it('a bad pattern is named with its index', () => {
    expect(() => compileArticlePatterns(['/ok/', '/(\\d{4}/'])).toThrow(
      /articlePatterns\[1\] "\/\(\\\\d\{4\}\/" is not a valid regular expression/,
    );
  });
});

describe('extractArticle', () => {
  it('turns the main content into Markdown with absolute links, without navigation or footer', () => {
    const a = extractArticle(
      blogPage(
        '',
        `<h1>My post</h1>${PROSE}
        <h2>Details</h2><p>See <a href="../other/">the other post</a>, <a href="https://ext.example/x">this</a>
        and <a href="#details">below</a>.</p><p><img src="img/a.png" alt="A diagram"></p>
        <pre><code>SELECT 1;</code></pre><ul><li>one</li><li>two</li></ul>`,
      ),
      PAGE,
    );
    const md = a.markdown!;
    expect(md.startsWith('# My post\n\n')).toBe(true); // the page title, Readability's choice
    expect(md).toContain('## Details');
    expect(md).toContain('[the other post](http://blog.example/2024/05/other/)');
    expect(md).toContain('[this](https://ext.example/x)');
    expect(md).toContain('![A diagram](http://blog.example/2024/05/my-post/img/a.png)');
    expect(md).toContain('```\nSELECT 1;\n```');
    expect(md).toContain('- one\n- two');
    expect(md).not.toContain('Privacy');
    expect(md).not.toContain('Archive');
    expect(a.links).toEqual(['http://blog.example/2024/05/other/', 'https://ext.example/x']);
  });

  it('resolves against <base href>', () => {
    const a = extractArticle(
      blogPage('<base href="http://cdn.example/base/">', `${PROSE}<p><a href="rel/page">x</a></p>`),
      PAGE,
    );
    expect(a.links).toEqual(['http://cdn.example/base/rel/page']);
  });

  it('reads title, author and dates from JSON-LD first (also in @graph, author lists)', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebPage', name: 'Page name' },
        {
          '@type': 'BlogPosting',
          headline: 'The headline',
          author: [{ '@type': 'Person', name: 'Jane Doe' }, { name: 'John Roe' }],
          datePublished: '2024-05-01T10:00:00+02:00',
          dateModified: '2024-05-03',
        },
      ],
    };
    const a = extractArticle(
      blogPage(
        `<meta name="author" content="Meta Author"><meta property="article:published_time" content="2020-01-01">
         <script type="application/ld+json">${JSON.stringify(ld)}</script>`,
        PROSE,
      ),
      PAGE,
    );
    expect(a).toMatchObject({
      title: 'The headline',
      author: 'Jane Doe, John Roe',
      published: '2024-05-01T08:00:00.000Z',
      updated: '2024-05-03T00:00:00.000Z',
    });
  });

  it('falls back to meta tags', () => {
    const a = extractArticle(
      blogPage(
        `<meta property="og:title" content="OG title"><meta property="article:author" content="https://facebook.example/jane">
         <meta name="author" content="  Jane   Doe "><meta property="article:published_time" content="2024-05-01T10:00:00Z">
         <meta property="article:modified_time" content="2024-05-02T10:00:00Z">`,
        PROSE,
      ),
      PAGE,
    );
    expect(a).toMatchObject({
      title: 'OG title',
      author: 'Jane Doe',
      published: '2024-05-01T10:00:00.000Z',
      updated: '2024-05-02T10:00:00.000Z',
    });
  });

  it('falls back to <time datetime> (pubdate/itemprop first) and a rel=author byline', () => {
    const a = extractArticle(
      blogPage(
        '',
        `<p>Updated <time datetime="2024-06-01">June</time>, first published
         <time itemprop="datePublished" datetime="2024-05-01T10:00:00Z">May 1</time>
         by <a rel="author" href="/jane/">Jane Doe</a></p>${PROSE}`,
      ),
      PAGE,
    );
    expect(a.published).toBe('2024-05-01T10:00:00.000Z');
    expect(a.author).toBe('Jane Doe');
    expect(a.title).toBe('My post');
  });

  it('gives metadata only (from the head) for documents past the size limit', () => {
    const huge = blogPage(
      '<meta name="author" content="Big">',
      PROSE + 'x'.repeat(ARTICLE_DEFAULTS.maxHtmlChars),
    );
    const a = extractArticle(huge, PAGE);
    expect(a.markdown).toBeNull();
    expect(a.author).toBe('Big');
    expect(a.title).toBe('My post');
  });

  it('gives metadata only for documents with too many elements', () => {
    const many = '<p><a href="/x">x</a> <b>y</b></p>'.repeat(Math.ceil(ARTICLE_DEFAULTS.maxElements / 3) + 1);
    const page = blogPage('<meta property="article:published_time" content="2024-05-01">', PROSE + many);
    const a = extractArticle(page, PAGE);
    expect(a.markdown).toBeNull();
    expect(a.links).toEqual([]);
    expect(a.published).toBe('2024-05-01T00:00:00.000Z');
    // just under the limit: extracted
    const fewer = '<p><a href="/x">x</a> <b>y</b></p>'.repeat(
      Math.floor(ARTICLE_DEFAULTS.maxElements / 3) - 30,
    );
    expect(extractArticle(blogPage('', PROSE + fewer), PAGE).markdown).not.toBeNull();
  });

  it('does not throw on garbage', () => {
    const a = extractArticle('\u0000<<>>&&<a href="', PAGE);
    expect(a.links).toEqual([]);
    expect(a.title).toBeNull();
  });
});
