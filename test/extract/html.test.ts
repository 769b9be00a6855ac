import { describe, expect, it } from 'vitest';
import { JSON_LD_MAX_CHARS } from '../../src/extract/head-facts.js';
import { extractHtml } from '../../src/extract/html.js';

const PAGE = 'http://example.com/dir/page.html';

describe('extractHtml: links', () => {
  it('collects a[href] and area[href] as canonical URLs in document order', () => {
    const html = `<html><body>
      <a href="b.html">B</a>
      <A HREF="/root#frag">root</A>
      <map><area href="//cdn.example.com/x" shape="rect"></map>
      <a href="https://Other.example:443/p?q=1">o</a>
      <a name="anchor-without-href">x</a>
    </body></html>`;
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://example.com/dir/b.html',
      'http://example.com/root',
      'http://cdn.example.com/x',
      'https://other.example/p?q=1',
    ]);
  });

  it('deduplicates within the page, after canonicalization', () => {
    const html =
      '<a href="/x">1</a><a href="/x#a">2</a><a href="http://EXAMPLE.com:80/x">3</a><a href="/y"></a><a href="/x"></a>';
    expect(extractHtml(html, PAGE).links).toEqual(['http://example.com/x', 'http://example.com/y']);
  });

  it('reads an href only up to its first #: what follows is the fragment, even a ? or a /', () => {
    const html =
      '<a href="a.html#s1">1</a><a href="a.html#s2?x=1">2</a><a href="b.html?q=1#/route/x">3</a><a href="#top">4</a><a href="#">5</a>';
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://example.com/dir/a.html',
      'http://example.com/dir/b.html?q=1',
      'http://example.com/dir/page.html',
    ]);
  });

  it('resolves relative, ../ past root, non-ASCII and percent-encoded hrefs', () => {
    const html =
      '<a href="../../../../up">1</a><a href="/ü">2</a><a href="%7euser/a%2fb">3</a><a href="http://bücher.example/">4</a>';
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://example.com/up',
      'http://example.com/%C3%BC',
      'http://example.com/dir/~user/a%2Fb',
      'http://xn--bcher-kva.example/',
    ]);
  });

  it('decodes entities in href and strips whitespace/newlines in it', () => {
    const html = '<a href="/s?a=1&amp;b=2">1</a><a href="\n  /multi\nline/pa\tth  \n">2</a>';
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://example.com/s?a=1&b=2',
      'http://example.com/multiline/path',
    ]);
  });

  it('skips mailto:, javascript:, data:, tel: and invalid hrefs', () => {
    const html = `<a href="mailto:a@example.com">m</a><a href="javascript:void(0)">j</a>
      <a href="data:text/plain,hi">d</a><a href="tel:123">t</a><a href="http://exa mple.com/">bad</a>
      <a href="ok">ok</a>`;
    expect(extractHtml(html, PAGE).links).toEqual(['http://example.com/dir/ok']);
  });

  it('takes link[href] only for rel next, prev or alternate', () => {
    const html = `<head>
      <link rel="stylesheet" href="/style.css">
      <link rel="icon" href="/favicon.ico">
      <link rel="canonical" href="/canonical">
      <link rel="Next" href="/page2">
      <link rel="prev" href="/page0">
      <link rel="  alternate  " hreflang="de" href="/de/">
      <link rel="alternate stylesheet" href="/alt.css">
      <link rel="preload next-thing" href="/no">
      <link href="/no-rel">
    </head>`;
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://example.com/page2',
      'http://example.com/page0',
      'http://example.com/de/',
      'http://example.com/alt.css',
    ]);
  });

  it('ignores anchors inside script, style and comments', () => {
    const html = `<script>document.write('<a href="/in-script">x</a>')</script>
      <style>/* <a href="/in-style"> */</style><!-- <a href="/in-comment"> -->
      <a href="/real">r</a>`;
    expect(extractHtml(html, PAGE).links).toEqual(['http://example.com/real']);
  });

  it('returns no links from an empty document', () => {
    expect(extractHtml('', PAGE)).toEqual({
      title: null,
      links: [],
      nofollow: false,
      metaCharset: null,
      refresh: null,
    });
  });
});

describe('extractHtml: base href', () => {
  it('resolves later links against the first <base href>', () => {
    const html = `<head><base href="https://static.example.org/docs/v2/"><base href="/ignored/"></head>
      <body><a href="intro.html">i</a><a href="../v1/">old</a><a href="/abs">a</a><a href="#x">self</a></body>`;
    expect(extractHtml(html, PAGE).links).toEqual([
      'https://static.example.org/docs/v2/intro.html',
      'https://static.example.org/docs/v1/',
      'https://static.example.org/abs',
      'https://static.example.org/docs/v2/',
    ]);
  });

  it('resolves a relative base against the page URL', () => {
    const html = '<base href="../other/"><a href="x">x</a>';
    expect(extractHtml(html, PAGE).links).toEqual(['http://example.com/other/x']);
  });

  it('applies a late base only to links after it', () => {
    const html = '<a href="x">before</a><base href="http://b.example/base/"><a href="x">after</a>';
    expect(extractHtml(html, PAGE).links).toEqual(['http://example.com/dir/x', 'http://b.example/base/x']);
  });

  it('ignores a non-http base and a base without href', () => {
    expect(
      extractHtml('<base target="_blank"><base href="http://b.example/"><a href="x">x</a>', PAGE).links,
    ).toEqual(['http://b.example/x']);
    expect(extractHtml('<base href="javascript:alert(1)"><a href="x">x</a>', PAGE).links).toEqual([
      'http://example.com/dir/x',
    ]);
  });
});

describe('extractHtml: robots nofollow', () => {
  it.each(['nofollow', 'noindex, nofollow', 'NOINDEX,NOFOLLOW', 'none'])(
    'meta robots %j sets nofollow and empties links',
    (content) => {
      const html = `<head><meta name="Robots" content="${content}"></head><a href="/x">x</a>`;
      expect(extractHtml(html, PAGE)).toMatchObject({ nofollow: true, links: [] });
    },
  );

  it('applies even when the meta comes after links', () => {
    const r = extractHtml(
      '<a href="/x">x</a><meta name="robots" content="nofollow"><a href="/y">y</a>',
      PAGE,
    );
    expect(r.nofollow).toBe(true);
    expect(r.links).toEqual([]);
  });

  it('does not trigger on other robots values or other meta names', () => {
    const html = `<meta name="robots" content="noindex, follow"><meta name="description" content="nofollow">
      <meta name="googlebot-news" content="nofollow"><a href="/x">x</a>`;
    expect(extractHtml(html, PAGE)).toMatchObject({ nofollow: false, links: ['http://example.com/x'] });
  });
});

describe('extractHtml: title', () => {
  it('decodes entities and collapses whitespace', () => {
    const html = '<title>\n  Tom &amp; Jerry&#39;s   &lt;Show&gt;\t&eacute;t&eacute;  \n</title>';
    expect(extractHtml(html, PAGE).title).toBe("Tom & Jerry's <Show> été");
  });

  it('keeps only the first title', () => {
    expect(extractHtml('<title>First</title><title>Second</title>', PAGE).title).toBe('First');
  });

  it('ignores a title inside svg', () => {
    const html =
      '<body><svg viewBox="0 0 1 1"><title>Icon</title><path d=""/></svg><title>Real</title></body>';
    expect(extractHtml(html, PAGE).title).toBe('Real');
    expect(extractHtml('<svg><title>Only icon</title></svg>', PAGE).title).toBeNull();
  });

  it('does not parse markup inside the title', () => {
    expect(extractHtml('<title>a <b>bold</b> move</title>', PAGE).title).toBe('a <b>bold</b> move');
  });

  it('is null when missing, empty string when empty', () => {
    expect(extractHtml('<p>no title</p>', PAGE).title).toBeNull();
    expect(extractHtml('<title>  </title>', PAGE).title).toBe('');
  });

  it('handles an unterminated title and caps its length', () => {
    expect(extractHtml('<title>Unclosed', PAGE).title).toBe('Unclosed');
    const long = extractHtml(`<title>${'x'.repeat(100_000)}`, PAGE).title;
    expect(long?.length).toBe(1024);
  });
});

describe('extractHtml: meta charset', () => {
  it('reads <meta charset>', () => {
    expect(extractHtml('<meta charset="Shift_JIS">', PAGE).metaCharset).toBe('Shift_JIS');
    expect(extractHtml('<meta charset=" utf-8 ">', PAGE).metaCharset).toBe('utf-8');
  });

  it('reads http-equiv content-type', () => {
    const html = '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">';
    expect(extractHtml(html, PAGE).metaCharset).toBe('ISO-8859-1');
    const quoted = `<meta http-equiv="content-type" content='text/html;charset = "windows-1251"'>`;
    expect(extractHtml(quoted, PAGE).metaCharset).toBe('windows-1251');
  });

  it('keeps the first declaration and ignores content without charset', () => {
    expect(extractHtml('<meta charset="utf-8"><meta charset="latin1">', PAGE).metaCharset).toBe('utf-8');
    expect(
      extractHtml(
        '<meta http-equiv="content-type" content="text/html"><meta name="x" content="charset=bogus">',
        PAGE,
      ).metaCharset,
    ).toBeNull();
  });
});

describe('extractHtml: robustness', () => {
  it('never throws on random bytes decoded as latin1', () => {
    let seed = 42;
    const rand = (): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      return seed >>> 24;
    };
    for (let n = 0; n < 200; n++) {
      const bytes = Buffer.alloc(2000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = rand();
      // Sprinkle markup so the parser goes through tag and attribute states.
      const text = bytes.toString('latin1').replace(/\x01/g, '<a href="').replace(/\x02/g, '<title>');
      const r = extractHtml(text, PAGE);
      expect(Array.isArray(r.links)).toBe(true);
      for (const link of r.links) expect(link).toMatch(/^https?:\/\//);
    }
  });

  it('survives malformed markup', () => {
    const html =
      '<a href="/a"<a href=/b><a href=\'/c\' <<>><a href><title><a href="/d"></title><p<a href="/e">';
    const r = extractHtml(html, PAGE);
    expect(r.links).toContain('http://example.com/a');
    expect(r.links.every((l) => l.startsWith('http://example.com/'))).toBe(true);
  });

  it('tolerates an invalid page URL (absolute links still work)', () => {
    expect(extractHtml('<a href="rel">r</a><a href="http://h.example/abs">a</a>', 'not a url').links).toEqual(
      ['http://h.example/abs'],
    );
  });
});

describe('extractHtml: head facts (metadata)', () => {
  const PAGE = `<!doctype html><html lang="fr" xml:lang="fr-CA"><head><title>T &amp; U</title>
<base href="/docs/"><meta http-equiv="Content-Language" content="fr">
<meta property="og:title" content="First"><meta property="OG:TITLE" content="Second">
<meta name="description" content="About &amp; more"><meta itemprop="author" content="Ada">
<meta name="empty-content" content=""><meta name="no-content">
<link rel="canonical stylesheet" href="/a/"><script type="application/ld+json; charset=utf-8">{"@type":"Article"}</script>
<script>var x = "<title>not this</title>";</script></head>
<body><link rel="canonical" href="/b/"><script type="application/ld+json">{"@type":"WebPage"}</script></body></html>`;

  it('gives what metadata is read from, only when asked', () => {
    expect(extractHtml(PAGE, 'https://h.example/x').head).toBeUndefined();
    const head = extractHtml(PAGE, 'https://h.example/x', { head: true }).head!;
    expect(Object.fromEntries(head.metas)).toEqual({
      'og:title': 'First',
      description: 'About & more',
      author: 'Ada',
      'empty-content': '',
    });
    expect(head).toMatchObject({
      lang: 'fr',
      xmlLang: 'fr-CA',
      contentLanguage: 'fr',
      title: 'T & U',
      base: '/docs/',
    });
    // a canonical link in <body> is not one (Google ignores those); JSON-LD is read anywhere
    expect(head.canonical).toEqual(['/a/']);
    expect(head.jsonLd).toEqual(['{"@type":"Article"}', '{"@type":"WebPage"}']);
  });

  it(`keeps at most ${JSON_LD_MAX_CHARS} characters of JSON-LD: a block that does not fit is skipped`, () => {
    const big = `{"name":"${'x'.repeat(JSON_LD_MAX_CHARS)}"}`;
    const html = `<script type="application/ld+json">${big}</script><script type="application/ld+json">{"a":1}</script>`;
    const head = extractHtml(html, 'https://h.example/x', { head: true }).head!;
    expect(head.jsonLd).toEqual(['{"a":1}']);
  });
});

describe('extractHtml: a UTF-8 document given as its bytes', () => {
  // Every place a string is read from: hrefs (relative, absolute IDN, split by an entity), <base>,
  // refresh, title, <meta> values, <html lang>, canonical links, JSON-LD, the text sketch.
  const DOCS = [
    `<html lang="fr-ÇA"><head><title> Ça &amp; là — ☃ 𝄞 </title>
<base href="/répertoire/"><meta name="description" content="Déjà vu &eacute;">
<meta property="og:title" content="Été"><link rel="canonical" href="/été/">
<meta http-equiv="refresh" content="0; url=/naïve">
<script type="application/ld+json">{"name":"Zoë ☃","headline":"𝄞"}</script></head>
<body><a href="café.html#sec">1</a><a href="http://bücher.example/straße?q=ä&amp;r=ö">2</a>
<a href='日本語/ページ'>3</a><area href="ü"><iframe src="/frame-ñ"></iframe>
<p>Wörter über Straßen, 日本語のテキスト, 2024-05-06</p></body></html>`,
    // a multi-byte character right before and after the syntax that ends a token
    `<title>é</title><a href="é"é>x</a><a href=é>y</a><a title=é href="/ü/">z</a>`,
  ];
  const opts = { head: true, sketch: true } as const;

  for (const [i, doc] of DOCS.entries()) {
    it(`gives what its text gives (document ${i + 1})`, () => {
      const fromText = extractHtml(doc, 'http://example.com/a/b.html', opts);
      const fromBytes = extractHtml(Buffer.from(doc, 'utf8'), 'http://example.com/a/b.html', opts);
      expect(fromBytes).toEqual(fromText);
      expect(fromText.links.length).toBeGreaterThan(1);
    });
  }

  it('reads bytes that are not UTF-8 as the decoder does: each bad sequence one U+FFFD', () => {
    const bytes = Buffer.concat([
      Buffer.from('<title>a'),
      Buffer.from([0xc3, 0x28, 0xff, 0xe2, 0x82]),
      Buffer.from('b</title><a href="/x'),
      Buffer.from([0xf0, 0x9f]),
      Buffer.from('">x</a><a href="/y'),
      Buffer.from([0xe9]),
      Buffer.from('">y</a>'),
    ]);
    const fromText = extractHtml(new TextDecoder().decode(bytes), 'http://example.com/', opts);
    expect(extractHtml(bytes, 'http://example.com/', opts)).toEqual(fromText);
    expect(fromText.title).toBe('a\ufffd(\ufffd\ufffdb');
    expect(fromText.links).toEqual(['http://example.com/x%EF%BF%BD', 'http://example.com/y%EF%BF%BD']);
  });
});
