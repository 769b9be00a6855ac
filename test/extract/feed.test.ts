import { describe, expect, it } from 'vitest';
import { readFeed } from '../../src/extract/feed.js';

const FEED = 'http://blog.example/feed/';
const read = (body: string | Buffer, contentType: string | null = 'application/xml') =>
  readFeed(typeof body === 'string' ? Buffer.from(body) : body, contentType, FEED);

describe('readFeed: RSS 2.0', () => {
  it('reads items’ link, title and pubDate', () => {
    const feed = read(`<?xml version="1.0" encoding="UTF-8"?>
      <rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
        <channel>
          <title>My blog</title>
          <link>http://blog.example/</link>
          <atom:link href="http://blog.example/feed/" rel="self" type="application/rss+xml"/>
          <item>
            <title>First &amp; foremost</title>
            <link>http://blog.example/2024/05/first/</link>
            <pubDate>Wed, 01 May 2024 10:00:00 +0000</pubDate>
            <guid isPermaLink="false">post-1</guid>
          </item>
          <item>
            <title><![CDATA[Second <em>post</em>]]></title>
            <link>
              /2024/05/second/
            </link>
          </item>
        </channel>
      </rss>`);
    expect(feed).toEqual({
      kind: 'rss',
      title: 'My blog',
      entries: [
        {
          url: 'http://blog.example/2024/05/first/',
          title: 'First & foremost',
          published: '2024-05-01T10:00:00.000Z',
          updated: null,
        },
        { url: 'http://blog.example/2024/05/second/', title: 'Second post', published: null, updated: null },
      ],
      next: null,
      skipped: 0,
    });
  });

  it('uses a permalink guid when there is no link, not a guid marked isPermaLink="false"', () => {
    const feed = read(`<rss><channel>
      <item><title>a</title><guid>http://blog.example/a</guid></item>
      <item><title>b</title><guid isPermaLink="true">/b</guid></item>
      <item><title>c</title><guid isPermaLink="false">http://blog.example/c</guid></item>
      <item><title>d</title><guid>urn:uuid:1234</guid></item>
    </channel></rss>`);
    expect(feed!.entries.map((e) => e.url)).toEqual(['http://blog.example/a']);
    expect(feed!.skipped).toBe(3);
  });

  it('falls back to an atom:link alternate inside an item', () => {
    const feed = read(`<rss xmlns:atom="http://www.w3.org/2005/Atom"><channel><item>
      <atom:link rel="alternate" href="http://blog.example/x"/></item></channel></rss>`);
    expect(feed!.entries[0].url).toBe('http://blog.example/x');
  });

  it('reads dc:date and atom:updated', () => {
    const feed = read(`<rss xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><item>
      <link>http://blog.example/x</link><dc:date>2024-05-01T10:00:00Z</dc:date>
      <atom:updated>2024-05-02T10:00:00Z</atom:updated></item></channel></rss>`);
    expect(feed!.entries[0]).toMatchObject({
      published: '2024-05-01T10:00:00.000Z',
      updated: '2024-05-02T10:00:00.000Z',
    });
  });
});

describe('readFeed: RSS 1.0 (RDF)', () => {
  it('reads items beside the channel, by link or rdf:about', () => {
    const feed = read(`<?xml version="1.0"?>
      <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
          xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="http://blog.example/"><title>RDF blog</title>
          <items><rdf:Seq><rdf:li resource="http://blog.example/one"/></rdf:Seq></items></channel>
        <item rdf:about="http://blog.example/one"><title>One</title><link>http://blog.example/one</link>
          <dc:date>2024-05-01</dc:date></item>
        <item rdf:about="http://blog.example/two"><title>Two</title></item>
      </rdf:RDF>`);
    expect(feed!.kind).toBe('rdf');
    expect(feed!.title).toBe('RDF blog');
    expect(feed!.entries).toEqual([
      { url: 'http://blog.example/one', title: 'One', published: '2024-05-01T00:00:00.000Z', updated: null },
      { url: 'http://blog.example/two', title: 'Two', published: null, updated: null },
    ]);
  });
});

describe('readFeed: Atom', () => {
  it('takes the rel="alternate" link (HTML preferred), else the link without rel', () => {
    const feed = read(`<feed xmlns="http://www.w3.org/2005/Atom"><title type="text">Atom blog</title>
      <link rel="self" href="http://blog.example/atom.xml"/>
      <entry><title>A</title>
        <link rel="edit" href="http://blog.example/edit/a"/>
        <link rel="alternate" type="application/pdf" href="http://blog.example/a.pdf"/>
        <link rel="alternate" type="text/html" href="http://blog.example/a"/>
        <published>2024-05-01T10:00:00Z</published><updated>2024-05-03T10:00:00+02:00</updated>
      </entry>
      <entry><title>B</title><link rel="replies" href="http://blog.example/b#comments"/><link href="http://blog.example/b"/></entry>
      <entry><title>C</title><link rel="enclosure" href="http://blog.example/c.mp3"/></entry>
    </feed>`);
    expect(feed!.kind).toBe('atom');
    expect(feed!.title).toBe('Atom blog');
    expect(feed!.entries).toEqual([
      {
        url: 'http://blog.example/a',
        title: 'A',
        published: '2024-05-01T10:00:00.000Z',
        updated: '2024-05-03T08:00:00.000Z',
      },
      { url: 'http://blog.example/b', title: 'B', published: null, updated: null },
    ]);
    expect(feed!.skipped).toBe(1);
  });

  it('resolves relative links against nested xml:base, then the feed URL', () => {
    const feed = read(`<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://other.example/blog/">
      <entry xml:base="posts/"><link href="one.html"/></entry>
      <entry><link href="two.html"/></entry>
    </feed>`);
    expect(feed!.entries.map((e) => e.url)).toEqual([
      'http://other.example/blog/posts/one.html',
      'http://other.example/blog/two.html',
    ]);
    const noBase = read('<feed><entry><link href="/p/3"/></entry></feed>');
    expect(noBase!.entries[0].url).toBe('http://blog.example/p/3');
  });

  it('strips markup from an HTML title and reads Atom 0.3 dates', () => {
    const feed = read(`<feed version="0.3"><entry><title type="html">&lt;b&gt;Bold&lt;/b&gt; move</title>
      <link rel="alternate" href="http://blog.example/x"/><issued>2004-01-01T00:00:00Z</issued>
      <modified>2004-01-02T00:00:00Z</modified></entry></feed>`);
    expect(feed!.entries[0]).toEqual({
      url: 'http://blog.example/x',
      title: 'Bold move',
      published: '2004-01-01T00:00:00.000Z',
      updated: '2004-01-02T00:00:00.000Z',
    });
  });

  it('reads the RFC 5005 next page', () => {
    const feed = read('<feed><link rel="next" href="?page=2"/><entry><link href="/a"/></entry></feed>');
    expect(feed!.next).toBe('http://blog.example/feed/?page=2');
  });

  it('reads a feed whose elements carry a prefix', () => {
    const feed =
      read(`<atom:feed xmlns:atom="http://www.w3.org/2005/Atom"><atom:entry><atom:title>P</atom:title>
      <atom:link href="http://blog.example/p"/></atom:entry></atom:feed>`);
    expect(feed!.entries).toEqual([
      { url: 'http://blog.example/p', title: 'P', published: null, updated: null },
    ]);
  });
});

describe('readFeed: real-world breakage', () => {
  it('decodes HTML entities XML does not know, and survives a raw &', () => {
    const feed = read(`<rss><channel><title>Caf&eacute; &mdash; blog</title><item>
      <title>Tom&nbsp;&amp;&nbsp;Jerry & friends</title><link>http://blog.example/x?a=1&b=2</link>
    </item></channel></rss>`);
    expect(feed!.title).toBe('Café — blog');
    expect(feed!.entries[0].title).toBe('Tom\u00a0&\u00a0Jerry & friends');
    expect(feed!.entries[0].url).toBe('http://blog.example/x?a=1&b=2');
  });

  it('tolerates undeclared prefixes, a BOM, and a feed served as text/html', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(
        '<rss><channel><item><media:thumbnail url="x"/><foo:bar>?</foo:bar><link>http://blog.example/y</link></item></channel></rss>',
      ),
    ]);
    expect(read(body, 'text/html')!.entries.map((e) => e.url)).toEqual(['http://blog.example/y']);
  });

  it('decodes by the charset named only in the XML prolog', () => {
    const xml =
      '<?xml version="1.0" encoding="windows-1252"?><rss><channel><item><title>Na\xefve \x93quotes\x94</title><link>http://blog.example/z</link></item></channel></rss>';
    const feed = read(Buffer.from(xml, 'latin1'), 'text/xml');
    expect(feed!.entries[0].title).toBe('Naïve “quotes”');
  });

  it('does not fetch or expand a DTD or a declared entity', () => {
    const feed = read(`<?xml version="1.0"?>
      <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://127.0.0.1:9/rss-0.91.dtd" [
        <!ENTITY boom "BOOM">
      ]>
      <rss version="0.91"><channel><item><title>x &boom; y</title><link>http://blog.example/d</link></item></channel></rss>`);
    expect(feed!.entries[0].url).toBe('http://blog.example/d');
    expect(feed!.entries[0].title).toBe('x &boom; y');
  });

  it('collects a duplicated entry once (first wins)', () => {
    const feed = read(`<rss><channel>
      <item><title>first</title><link>http://blog.example/dup</link></item>
      <item><title>second</title><link>http://blog.example/dup#comments</link></item>
      <item><title>other</title><link>http://blog.example/other</link></item>
    </channel></rss>`);
    expect(feed!.entries.map((e) => [e.url, e.title])).toEqual([
      ['http://blog.example/dup', 'first'],
      ['http://blog.example/other', 'other'],
    ]);
    expect(feed!.skipped).toBe(1);
  });

  it('is null for HTML, garbage and empty bodies', () => {
    expect(read('<!doctype html><html><body>no feed</body></html>', 'text/html')).toBeNull();
    expect(read('\u0000\u0001binary')).toBeNull();
    expect(read('')).toBeNull();
    expect(read('{"not":"a feed"}', 'application/json')).toBeNull();
  });
});

describe('readFeed: JSON Feed', () => {
  it('reads items’ url (else external_url), title and dates, relative to the feed', () => {
    const feed = read(
      JSON.stringify({
        version: 'https://jsonfeed.org/version/1.1',
        title: 'JSON blog',
        next_url: 'https://blog.example/feed.json?page=2',
        items: [
          { id: '1', url: '/2024/05/j1', title: ' J1 ', date_published: '2024-05-01T10:00:00-07:00' },
          { id: '2', external_url: 'https://elsewhere.example/x', date_modified: '2024-05-02' },
          { id: '3', content_text: 'no url' },
          { id: '4', url: '/2024/05/j1' },
        ],
      }),
      'application/feed+json',
    );
    expect(feed).toEqual({
      kind: 'json',
      title: 'JSON blog',
      entries: [
        {
          url: 'http://blog.example/2024/05/j1',
          title: 'J1',
          published: '2024-05-01T17:00:00.000Z',
          updated: null,
        },
        {
          url: 'https://elsewhere.example/x',
          title: null,
          published: null,
          updated: '2024-05-02T00:00:00.000Z',
        },
      ],
      next: 'https://blog.example/feed.json?page=2',
      skipped: 2,
    });
  });
});
