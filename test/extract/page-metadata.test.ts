import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../src/extract/html.js';
import { parseHtmlDocument } from '../../src/extract/light-dom-parse.js';
import {
  type Doc,
  METADATA_FIELDS,
  metadataOf,
  PAGE_METADATA_DEFAULTS,
  type PageMetadata,
  readPageMetadata,
} from '../../src/extract/page-metadata.js';

const PAGE = 'https://news.acme.example/2024/05/dont-panic/';

function doc(html: string): Doc {
  return parseHtmlDocument(html);
}

/** Fields that the body may state (an `<h1>`, a `rel=author` link, `<time>`): the DOM reads them, a streaming pass over the markup does not. */
const BODY_HINTED = new Set<keyof PageMetadata>(['title', 'author', 'published', 'modified']);

/**
 * The page's metadata read from its DOM — and, in every test, checked against the same page read
 * by one streaming pass (`extractHtml`'s `head`, as the plain crawl reads every page): each field
 * the same, but those only the body states, which the stream leaves null.
 */
function read(html: string, pageUrl = PAGE, contentLanguage?: string | null) {
  const fromDom = readPageMetadata(doc(html), pageUrl, contentLanguage);
  const facts = extractHtml(html, pageUrl, { head: true }).head;
  expect(facts).toBeDefined();
  const streamed = metadataOf(facts!, pageUrl, contentLanguage);
  for (const key of METADATA_FIELDS)
    if (!(streamed[key] === null && BODY_HINTED.has(key))) expect(streamed[key], key).toBe(fromDom[key]);
  return fromDom;
}

function ld(value: unknown): string {
  return `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
}

describe('readPageMetadata: a WordPress page with a Yoast @graph', () => {
  const html = `<!doctype html><html lang="en_US"><head>
    <title>Don&#8217;t panic &amp; carry on - Acme Times</title>
    <base href="/2024/">
    <link rel="canonical" href="05/dont-panic/?utm=x#comments">
    <meta property="og:site_name" content="Acme Times">
    ${ld({
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'WebPage',
          '@id': `${PAGE}#webpage`,
          name: 'Don&#8217;t panic &amp; carry on - Acme Times',
          description: 'What to do when the &quot;big one&quot; comes.',
          datePublished: '2024-05-01T10:00:00+02:00',
        },
        {
          '@type': 'NewsArticle',
          headline: 'Don&#8217;t panic &amp; carry on',
          author: { '@id': `${PAGE}#/schema/person/1` },
          publisher: { '@id': 'https://news.acme.example/#organization' },
          datePublished: '2024-05-01T10:00:00+02:00',
          dateModified: '2024-05-02 08:30:00',
          isPartOf: { '@id': `${PAGE}#webpage` },
        },
        { '@type': 'Person', '@id': `${PAGE}#/schema/person/1`, name: 'Jane  Doe' },
        {
          '@type': 'Organization',
          '@id': 'https://news.acme.example/#organization',
          name: 'Acme Media Group',
        },
        { '@type': 'WebSite', name: 'Acme Times Online' },
      ],
    })}
    </head><body><h1>Don’t panic</h1><p>Text.</p></body></html>`;

  it('reads every field', () => {
    expect(read(html)).toEqual({
      title: 'Don’t panic & carry on',
      description: 'What to do when the "big one" comes.',
      author: 'Jane Doe',
      published: '2024-05-01T08:00:00.000Z',
      modified: '2024-05-02T08:30:00.000Z',
      language: 'en-US',
      canonical: 'https://news.acme.example/2024/05/dont-panic/?utm=x',
      siteName: 'Acme Times',
    });
  });
});

describe('title', () => {
  it('takes JSON-LD, Open Graph, Dublin Core, Twitter, <title>, then <h1>, in that order', () => {
    const head = (...parts: string[]) =>
      read(`<html><head>${parts.join('')}</head><body><h1>H1 title</h1></body></html>`).title;
    const t = '<title>Page title</title>';
    const tw = '<meta name="twitter:title" content="Twitter title">';
    const dc = '<meta name="DC.title" content="DC title">';
    const og = '<meta property="og:title" content="OG title">';
    const article = ld({ '@type': 'BlogPosting', headline: 'LD headline', name: 'LD name' });
    expect(head(t, tw, dc, og, article)).toBe('LD headline');
    expect(head(t, tw, dc, og, ld({ '@type': 'Article', name: 'LD name' }))).toBe('LD name');
    expect(head(t, tw, dc, og)).toBe('OG title');
    expect(head(t, tw, dc)).toBe('DC title');
    expect(head(t, tw)).toBe('Twitter title');
    expect(head(t)).toBe('Page title');
    expect(head()).toBe('H1 title');
    expect(read('<html><body><p>no title</p></body></html>').title).toBeNull();
  });

  it('JSON-LD of an article type wins over a WebPage, in any block', () => {
    const html = `${ld({ '@type': 'WebPage', name: 'The page' })}${ld([{ '@type': ['Thing', 'schema:TechArticle'], headline: 'The article' }])}`;
    expect(read(html).title).toBe('The article');
    expect(read(ld({ '@type': 'https://schema.org/CollectionPage', name: 'The list' })).title).toBe(
      'The list',
    );
    // types other than articles and pages do not name the page
    expect(read(`<title>T</title>${ld({ '@type': 'Organization', name: 'Acme' })}`).title).toBe('T');
  });

  it('decodes entities that survived in JSON-LD and in double-encoded attributes, once', () => {
    expect(read(ld({ '@type': 'Article', headline: 'Rock &#038; roll&#8230; &lt;3' })).title).toBe(
      'Rock & roll… <3',
    );
    expect(read('<meta property="og:title" content="Tom &amp;amp; Jerry &amp;#8217;s">').title).toBe(
      'Tom & Jerry ’s',
    );
    expect(read('<title>Tom &amp;amp; Jerry</title>').title).toBe('Tom & Jerry');
    // strict: no entity without its semicolon (a query string stays as written)
    expect(read('<title>AT&amp;T &amp;copy=1</title>').title).toBe('AT&T &copy=1');
  });

  it('removes the site name given by og:site_name', () => {
    const html = '<title>Foo bar | TheHill</title><meta property="og:site_name" content="TheHill">';
    expect(read(html).title).toBe('Foo bar');
  });

  it('removes the registrable name of the host', () => {
    expect(read('<title>Why X - The Verge</title>', 'https://www.theverge.com/2024/1/1/why-x').title).toBe(
      'Why X',
    );
  });

  it('removes the part by which <title> differs from another title', () => {
    const html = `${ld({ '@type': 'WebPage', name: 'Foo bar · Whatever Co' })}<meta property="og:title" content="Foo bar"><title>Foo bar · Whatever Co</title>`;
    expect(read(html).title).toBe('Foo bar');
    expect(read(`<title>Other thing · Whatever Co</title>`).title).toBe('Other thing · Whatever Co');
  });

  it('removes a site name found in JSON-LD or application-name', () => {
    expect(
      read(`<title>Foo bar - Acme Daily</title>${ld({ '@type': 'WebSite', name: 'Acme Daily' })}`).title,
    ).toBe('Foo bar');
    expect(
      read('<title>Foo bar – Acme Daily</title><meta name="application-name" content="Acme Daily">').title,
    ).toBe('Foo bar');
  });

  it('keeps titles that do not end in a site name', () => {
    expect(
      read('<title>Python: the good parts</title><meta property="og:site_name" content="Python">').title,
    ).toBe('Python: the good parts');
    expect(read('<title>A – B</title>').title).toBe('A – B');
    expect(read('<title>Acme Daily</title><meta property="og:site_name" content="Acme Daily">').title).toBe(
      'Acme Daily',
    );
  });

  it('is cut at a bounded length', () => {
    expect(read(`<title>${'a'.repeat(10_000)}</title>`).title).toHaveLength(
      PAGE_METADATA_DEFAULTS.maxTextChars,
    );
    // never half a surrogate pair
    const emoji = read(`<title>a${'😀'.repeat(PAGE_METADATA_DEFAULTS.maxTextChars)}</title>`).title!;
    expect(emoji.length).toBe(PAGE_METADATA_DEFAULTS.maxTextChars - 1);
    expect(emoji.endsWith('😀')).toBe(true);
  });
});

describe('description', () => {
  it('meta description, og:description, twitter:description, then JSON-LD', () => {
    const d = (...parts: string[]) => read(parts.join('')).description;
    const md = '<meta name="Description" content="  Meta   description ">';
    const og = '<meta property="og:description" content="OG description">';
    const tw = '<meta name="twitter:description" content="Twitter description">';
    const j = ld({ '@type': 'Article', description: 'LD description' });
    expect(d(j, tw, og, md)).toBe('Meta description');
    expect(d(j, tw, og)).toBe('OG description');
    expect(d(j, tw)).toBe('Twitter description');
    expect(d(j)).toBe('LD description');
    expect(d('<meta name="description" content="   ">')).toBeNull();
  });
});

describe('author', () => {
  it('JSON-LD authors: strings, objects, lists, references; repeated names once', () => {
    const a = (author: unknown) => read(ld({ '@type': 'Article', author })).author;
    expect(a('Jane Doe')).toBe('Jane Doe');
    expect(a({ '@type': 'Person', name: 'Jane Doe' })).toBe('Jane Doe');
    expect(a([{ name: 'Jane Doe' }, 'John Roe', { name: 'Jane Doe' }, { url: 'https://x' }])).toBe(
      'Jane Doe, John Roe',
    );
    expect(a({ '@id': '#nobody' })).toBeNull();
  });

  it('meta author, Dublin Core creator, article:author unless a URL, then a rel=author link', () => {
    expect(
      read('<meta name="author" content="Meta Author"><meta name="dc.creator" content="DC">').author,
    ).toBe('Meta Author');
    expect(read('<meta name="DC.creator" content="DC Creator">').author).toBe('DC Creator');
    expect(read('<meta property="article:author" content="https://facebook.com/jane">').author).toBeNull();
    expect(read('<meta property="article:author" content="Jane Doe">').author).toBe('Jane Doe');
    expect(
      read('<link rel="author" href="/humans.txt"><p>By <a rel="author" href="/jane">Jane Doe</a></p>')
        .author,
    ).toBe('Jane Doe');
    expect(read('<div itemprop="author"><span itemprop="name">Jane Doe</span></div>').author).toBe(
      'Jane Doe',
    );
  });
});

describe('dates', () => {
  it('published: JSON-LD, then meta, then <time>', () => {
    const p = (...parts: string[]) => read(parts.join('')).published;
    const j = ld({ '@type': 'Article', datePublished: '2024-03-01' });
    const m = '<meta property="article:published_time" content="2024-03-02T10:00:00Z">';
    const t =
      '<time datetime="2024-03-04">4 March</time><article><time pubdate datetime="2024-03-03">3 March</time></article>';
    expect(p(t, m, j)).toBe('2024-03-01T00:00:00.000Z');
    expect(p(t, m)).toBe('2024-03-02T10:00:00.000Z');
    expect(p(t)).toBe('2024-03-03T00:00:00.000Z');
    expect(p('<meta name="DC.date" content="2024-03-05">')).toBe('2024-03-05T00:00:00.000Z');
    expect(p(ld({ '@type': 'Article', datePublished: 'last Tuesday' }))).toBeNull();
  });

  it('modified: JSON-LD, article:modified_time, og:updated_time, then <time itemprop=dateModified>', () => {
    const m = (...parts: string[]) => read(parts.join('')).modified;
    expect(m(ld({ '@type': 'Article', dateModified: '2024-04-01T12:00:00-05:00' }))).toBe(
      '2024-04-01T17:00:00.000Z',
    );
    expect(m('<meta property="article:modified_time" content="2024-04-02">')).toBe(
      '2024-04-02T00:00:00.000Z',
    );
    expect(m('<meta property="og:updated_time" content="1712102400">')).toBe('2024-04-03T00:00:00.000Z');
    expect(m('<meta name="dcterms.modified" content="2024-04-04">')).toBe('2024-04-04T00:00:00.000Z');
    expect(m('<time itemprop="dateModified" datetime="2024-04-05">5 April</time>')).toBe(
      '2024-04-05T00:00:00.000Z',
    );
    expect(m('<time datetime="2024-04-06">6 April</time>')).toBeNull();
  });
});

describe('language', () => {
  it('<html lang>, normalised', () => {
    expect(read('<html lang="EN-gb"><title>x</title></html>').language).toBe('en-GB');
    expect(read('<html lang="zh_hant_tw"><title>x</title></html>').language).toBe('zh-Hant-TW');
  });

  it('xml:lang, the content-language pragma, then the header', () => {
    const pragma = '<meta http-equiv="Content-Language" content="de-at">';
    expect(read('<html xml:lang="fr"><title>x</title></html>', PAGE, 'es').language).toBe('fr');
    expect(read(`<html><head>${pragma}</head></html>`, PAGE, 'es').language).toBe('de-AT');
    expect(read('<html><head><title>x</title></head></html>', PAGE, 'es-MX').language).toBe('es-MX');
    expect(read('<html><head><title>x</title></head></html>', PAGE, null).language).toBeNull();
    expect(read('<html><head><title>x</title></head></html>').language).toBeNull();
  });

  it('an empty or invalid lang falls through to the next source', () => {
    expect(read('<html lang=""><title>x</title></html>', PAGE, 'it').language).toBe('it');
    expect(read('<html lang="{{ locale }}"><title>x</title></html>', PAGE, 'it').language).toBe('it');
  });

  it('a pragma or header listing several languages says nothing', () => {
    const pragma = '<meta http-equiv="content-language" content="de, en">';
    expect(read(`<html><head>${pragma}</head></html>`, PAGE, 'fr').language).toBe('fr');
    expect(read('<html><head><title>x</title></head></html>', PAGE, 'de, en').language).toBeNull();
  });
});

describe('canonical', () => {
  const c = (head: string, body = '', pageUrl = PAGE) =>
    read(`<html><head>${head}</head><body>${body}</body></html>`, pageUrl).canonical;

  it('is resolved against the page URL, or the document base', () => {
    expect(c('<link rel="canonical" href="/a/b?c=1#frag">')).toBe('https://news.acme.example/a/b?c=1');
    expect(c('<link rel="canonical" href="../other/">')).toBe('https://news.acme.example/2024/05/other/');
    expect(c('<base href="https://cdn.acme.example/x/"><link rel="canonical" href="y">')).toBe(
      'https://cdn.acme.example/x/y',
    );
    expect(c('<link rel="Canonical" href=" https://acme.example/p ">')).toBe('https://acme.example/p');
    expect(c('<link rel="alternate canonical" href="https://acme.example/p">')).toBe(
      'https://acme.example/p',
    );
  });

  it('only http(s)', () => {
    expect(c('<link rel="canonical" href="javascript:void(0)">')).toBeNull();
    expect(c('<link rel="canonical" href="ftp://acme.example/p">')).toBeNull();
    expect(c('<link rel="canonical" href="https://[bad">')).toBeNull();
  });

  it('none when absent, empty, in <body>, or when several disagree', () => {
    expect(c('<link rel="alternate" href="/feed">')).toBeNull();
    expect(c('<link rel="canonical" href="">')).toBeNull();
    expect(c('', '<link rel="canonical" href="/injected">')).toBeNull();
    expect(c('<link rel="canonical" href="/a"><link rel="canonical" href="/b">')).toBeNull();
    // the same URL twice is one canonical
    expect(
      c('<link rel="canonical" href="/a"><link rel="canonical" href="https://news.acme.example/a">'),
    ).toBe('https://news.acme.example/a');
  });

  it('og:url is not a canonical', () => {
    expect(c('<meta property="og:url" content="https://news.acme.example/">')).toBeNull();
  });
});

describe('siteName', () => {
  it('og:site_name, JSON-LD publisher, JSON-LD WebSite, then application-name', () => {
    const s = (...parts: string[]) => read(parts.join('')).siteName;
    const og = '<meta property="og:site_name" content="OG Site">';
    const pub = ld({ '@type': 'Article', publisher: { '@type': 'Organization', name: 'Publisher' } });
    const site = ld({ '@type': 'WebSite', name: 'Web Site' });
    const app = '<meta name="application-name" content="App Name">';
    expect(s(app, site, pub, og)).toBe('OG Site');
    expect(s(app, site, pub)).toBe('Publisher');
    expect(s(app, site)).toBe('Web Site');
    expect(s(app)).toBe('App Name');
    expect(s('<title>x</title>')).toBeNull();
  });

  it('is decoded once, like every text value', () => {
    const pub = ld({ '@type': 'Article', publisher: { name: 'Tom &amp;amp; Jerry' } });
    expect(read(pub).siteName).toBe('Tom &amp; Jerry');
    expect(read('<meta property="og:site_name" content="Tom &amp;amp;amp; Jerry">').siteName).toBe(
      'Tom &amp; Jerry',
    );
  });
});

describe('JSON-LD as pages write it', () => {
  it('reads a block with raw line breaks in strings, inside CDATA or a comment', () => {
    const raw = '{"@type": "Article", "headline": "Line one\nline two"}';
    expect(read(`<script type="application/ld+json">${raw}</script>`).title).toBe('Line one line two');
    expect(read(`<script type="application/ld+json"><![CDATA[${raw}]]></script>`).title).toBe(
      'Line one line two',
    );
    expect(read(`<script type="application/ld+json"><!-- ${raw} --></script>`).title).toBe(
      'Line one line two',
    );
  });

  it('skips a broken block and reads the next', () => {
    const html = `<script type="application/ld+json">{"@type": "Article", </script>${ld({ '@type': 'Article', headline: 'Fine' })}`;
    expect(read(html).title).toBe('Fine');
  });

  it('reads an article that is the mainEntity of a page, and a nested @graph', () => {
    expect(
      read(ld({ '@type': 'WebPage', name: 'Page', mainEntity: { '@type': 'Article', headline: 'Main' } }))
        .title,
    ).toBe('Main');
    expect(read(ld({ '@graph': [{ '@graph': [{ '@type': 'Article', headline: 'Deep' }] }] })).title).toBe(
      'Deep',
    );
  });

  it('ignores other script types', () => {
    expect(
      read(
        `<script type="application/json">${JSON.stringify({ '@type': 'Article', headline: 'No' })}</script>`,
      ).title,
    ).toBeNull();
  });
});

describe('readPageMetadata on odd input', () => {
  it('an empty document has no metadata', () => {
    expect(read('')).toEqual({
      title: null,
      description: null,
      author: null,
      published: null,
      modified: null,
      language: null,
      canonical: null,
      siteName: null,
    });
  });

  it('a document of its head only', () => {
    const m = read(
      '<html lang="pt-br"><head><title>Olá | Acme</title><meta property="og:site_name" content="Acme">',
    );
    expect(m.title).toBe('Olá');
    expect(m.language).toBe('pt-BR');
  });

  it('JSON-LD values of the wrong kind are ignored', () => {
    const m = read(
      ld({ '@type': 'Article', headline: 42, author: { name: ['x'] }, datePublished: {}, description: null }),
    );
    expect(m).toMatchObject({ title: null, author: null, published: null, description: null });
  });
});
