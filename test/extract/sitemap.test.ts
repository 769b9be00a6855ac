import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isGzip, readSitemap, SITEMAP_LIMITS } from '../../src/extract/sitemap.js';
import { SitemapParser } from '../../src/extract/sitemap-parser.js';

const SM = 'http://example.com/sitemap.xml';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

const read = (body: string | Buffer, extra: Partial<Parameters<typeof readSitemap>[1]> = {}) =>
  readSitemap([typeof body === 'string' ? Buffer.from(body) : body], { url: SM, ...extra });

const urlsOf = (r: Awaited<ReturnType<typeof readSitemap>>) => r.urls.map((e) => e.url);

describe('readSitemap: urlset and index', () => {
  it('reads <url> entries with loc and lastmod', async () => {
    const r = await read(`<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="${NS}">
        <url><loc>http://example.com/a</loc><lastmod>2024-05-01</lastmod><priority>0.5</priority></url>
        <url>
          <loc>
            http://example.com/b?x=1&amp;y=2
          </loc>
        </url>
      </urlset>`);
    expect(r.kind).toBe('urlset');
    expect(r.urls).toEqual([
      { url: 'http://example.com/a', lastmod: Date.UTC(2024, 4, 1) },
      { url: 'http://example.com/b?x=1&y=2', lastmod: null },
    ]);
    expect(r.sitemaps).toEqual([]);
    expect(r.stopped).toBeNull();
    expect(r.warnings).toEqual([]);
  });

  it('reads a sitemap index into sitemaps', async () => {
    const r = await read(`<sitemapindex xmlns="${NS}">
      <sitemap><loc>http://example.com/s1.xml.gz</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod></sitemap>
      <sitemap><loc>/s2.xml</loc></sitemap>
    </sitemapindex>`);
    expect(r.kind).toBe('sitemapindex');
    expect(r.sitemaps).toEqual([
      { url: 'http://example.com/s1.xml.gz', lastmod: Date.UTC(2024, 4, 1, 8) },
      { url: 'http://example.com/s2.xml', lastmod: null },
    ]);
    expect(r.urls).toEqual([]);
  });

  it('accepts any namespace prefix, or none, and odd case', async () => {
    const prefixed = await read(
      `<sm:urlset xmlns:sm="${NS}"><sm:url><sm:loc>http://example.com/p</sm:loc></sm:url></sm:urlset>`,
    );
    expect(prefixed.kind).toBe('urlset');
    expect(urlsOf(prefixed)).toEqual(['http://example.com/p']);
    const undeclared = await read('<x:urlset><x:URL><x:LOC>http://example.com/q</x:LOC></x:URL></x:urlset>');
    expect(urlsOf(undeclared)).toEqual(['http://example.com/q']);
    const none = await read('<urlset><url><loc>http://example.com/r</loc></url></urlset>');
    expect(urlsOf(none)).toEqual(['http://example.com/r']);
  });

  it('takes only the entry’s own <loc>, not an image or alternate extension’s', async () => {
    const r = await read(`<urlset xmlns="${NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
      <url>
        <image:image><image:loc>http://cdn.example.com/i.jpg</image:loc></image:image>
        <loc>http://example.com/page</loc>
        <xhtml:link rel="alternate" hreflang="de" href="http://example.com/de/page"/>
      </url></urlset>`);
    expect(urlsOf(r)).toEqual(['http://example.com/page']);
  });

  it('survives a BOM, leading whitespace, comments, CDATA, a stylesheet PI and a raw &', async () => {
    const body = `\uFEFF  \n<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="/s.xsl"?>
      <!-- generated -->
      <urlset xmlns="${NS}">
        <url><loc><![CDATA[http://example.com/c?a=1&b=2]]></loc></url>
        <url><loc>http://example.com/d?a=1&b=2</loc></url>
      </urlset>`;
    const r = await read(body);
    expect(urlsOf(r)).toEqual(['http://example.com/c?a=1&b=2', 'http://example.com/d?a=1&b=2']);
  });

  it('skips entries without a usable location and says so', async () => {
    const r = await read(`<urlset><url><lastmod>2024-01-01</lastmod></url><url><loc>mailto:x@y</loc></url>
      <url><loc>${'http://example.com/'}${'x'.repeat(SITEMAP_LIMITS.maxLocChars)}</loc></url>
      <url><loc>http://example.com/ok</loc></url></urlset>`);
    expect(urlsOf(r)).toEqual(['http://example.com/ok']);
    expect(r.skipped).toBe(3);
    expect(r.warnings.join('\n')).toMatch(/3 entries without a usable/);
  });

  it('does not emit a half-read entry from a cut-off file', async () => {
    const r = await read('<urlset><url><loc>http://example.com/1</loc></url><url><loc>http://example.com/2');
    expect(urlsOf(r)).toEqual(['http://example.com/1']);
  });

  it('calls an HTML page (a soft 404) not a sitemap', async () => {
    const r = await read('<!doctype html><html><body><a href="/x">x</a></body></html>');
    expect(r.kind).toBe('unknown');
    expect(r.root).toBe('html');
    expect(r.count).toBe(0);
    expect(r.warnings[0]).toMatch(/is not a sitemap \(root element <html>\)/);
  });

  it('decodes by the XML declaration’s encoding', async () => {
    const xml =
      '<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>http://example.com/caf\xe9</loc></url></urlset>';
    const r = await read(Buffer.from(xml, 'latin1'));
    expect(urlsOf(r)).toEqual(['http://example.com/caf%C3%A9']);
  });

  it('reads lastmod in the formats real sitemaps use', async () => {
    const lastmods = [
      '2024-05-01',
      '2024-05-01T10:00:00Z',
      '2024-05-01T10:00:00+0000',
      '2024-05-01 10:00:00',
      'Wed, 01 May 2024 10:00:00 GMT',
      'not a date',
    ];
    const r = await read(
      `<urlset>${lastmods.map((m, i) => `<url><loc>http://example.com/${i}</loc><lastmod> ${m} </lastmod></url>`).join('')}</urlset>`,
    );
    expect(r.urls.map((e) => e.lastmod)).toEqual([
      Date.UTC(2024, 4, 1),
      Date.UTC(2024, 4, 1, 10),
      Date.UTC(2024, 4, 1, 10),
      Date.UTC(2024, 4, 1, 10),
      Date.UTC(2024, 4, 1, 10),
      null,
    ]);
  });
});

describe('readSitemap: input forms', () => {
  it('takes one buffer, an array of buffers, or a stream', async () => {
    const xml = '<urlset><url><loc>http://example.com/a</loc></url></urlset>';
    for (const input of [
      Buffer.from(xml),
      [Buffer.from(xml)],
      Readable.from([Buffer.from(xml)]),
      new Uint8Array(Buffer.from(xml)),
    ]) {
      expect(urlsOf(await readSitemap(input, { url: SM }))).toEqual(['http://example.com/a']);
    }
  });
});

describe('readSitemap: plain text', () => {
  it('reads one URL a line, CRLF, blank lines, and skips what is not a URL', async () => {
    const r = await read(
      '\uFEFFhttp://example.com/a\r\n\r\nhttps://example.com/b  \r\n# comment\r\n/relative\r\nhttp://example.com/c',
    );
    expect(r.kind).toBe('text');
    expect(r.root).toBeNull();
    expect(urlsOf(r)).toEqual(['http://example.com/a', 'https://example.com/b', 'http://example.com/c']);
    expect(r.skipped).toBe(2);
  });

  it('reads lines split across chunks', async () => {
    const chunks = ['http://exa', 'mple.com/a\nhttp://example.com/', 'b\n'].map((s) => Buffer.from(s));
    const r = await readSitemap(chunks, { url: SM });
    expect(urlsOf(r)).toEqual(['http://example.com/a', 'http://example.com/b']);
  });
});

describe('readSitemap: gzip', () => {
  const xml = `<urlset xmlns="${NS}"><url><loc>http://example.com/z</loc></url></urlset>`;

  it('recognises gzip by its magic bytes, whatever it was labelled', async () => {
    for (const contentType of [
      null,
      'application/gzip',
      'application/x-gzip',
      'text/xml',
      'application/octet-stream',
    ]) {
      const r = await read(gzipSync(xml), { contentType });
      expect(r.gzip).toBe(true);
      expect(urlsOf(r)).toEqual(['http://example.com/z']);
    }
  });

  it('reads a body whose gzip was already removed (Content-Encoding) as plain XML', async () => {
    const r = await read(xml, { contentType: 'application/gzip' });
    expect(r.gzip).toBe(false);
    expect(urlsOf(r)).toEqual(['http://example.com/z']);
  });

  it('inflates a stream split at every byte, including between the magic bytes', async () => {
    const gz = gzipSync(xml);
    const chunks = [...gz].map((b) => Buffer.from([b]));
    const r = await readSitemap(Readable.from(chunks), { url: SM });
    expect(urlsOf(r)).toEqual(['http://example.com/z']);
  });

  it('keeps the entries before a truncated gzip stream and warns', async () => {
    const many = `<urlset>${Array.from({ length: 2000 }, (_, i) => `<url><loc>http://example.com/${i}</loc></url>`).join('')}</urlset>`;
    const gz = gzipSync(many);
    const r = await read(gz.subarray(0, Math.floor(gz.length * 0.6)));
    expect(r.stopped).toBe('corrupt-gzip');
    expect(r.count).toBeGreaterThan(0);
    expect(r.count).toBeLessThan(2000);
    expect(r.warnings[0]).toMatch(/corrupt or truncated gzip/);
  });

  it('isGzip needs both magic bytes', () => {
    expect(isGzip(Buffer.from([0x1f, 0x8b, 8]))).toBe(true);
    expect(isGzip(Buffer.from([0x1f]))).toBe(false);
    expect(isGzip(Buffer.from('<?xml'))).toBe(false);
  });
});

describe('readSitemap: protocol limits', () => {
  it('stops after maxUrls entries with a warning; exactly maxUrls is fine', async () => {
    const body = (n: number) =>
      `<urlset>${Array.from({ length: n }, (_, i) => `<url><loc>http://example.com/${i}</loc></url>`).join('')}</urlset>`;
    const exact = await read(body(5), { maxUrls: 5 });
    expect(exact.count).toBe(5);
    expect(exact.stopped).toBeNull();
    const over = await read(body(8), { maxUrls: 5 });
    expect(over.count).toBe(5);
    expect(urlsOf(over)).toEqual([0, 1, 2, 3, 4].map((i) => `http://example.com/${i}`));
    expect(over.stopped).toBe('max-urls');
    expect(over.warnings[0]).toMatch(/more than 5 entries \(protocol limit\)/);
  });

  it('the default limit is the protocol’s 50,000 entries', async () => {
    const lines = Array.from({ length: 50_001 }, (_, i) => `http://example.com/${i}`).join('\n');
    const r = await read(lines);
    expect(r.count).toBe(50_000);
    expect(r.stopped).toBe('max-urls');
  });

  it('stops a 60 MB sitemap at 50 MB, holding no more than a chunk at any time', async () => {
    // ~1.3 KB per entry (an image extension with a long caption, as image sitemaps have), so
    // the 50 MB limit comes before the 50,000-URL one. Generated chunk by chunk, never whole.
    const CHUNK = 64 * 1024;
    const TOTAL = 60 * 1024 * 1024;
    const caption = 'c'.repeat(1100);
    let produced = 0;
    function* generate(): Generator<Buffer> {
      let pending = `<?xml version="1.0"?><urlset xmlns="${NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">`;
      let i = 0;
      while (produced < TOTAL) {
        while (pending.length < CHUNK) {
          pending += `<url><loc>http://example.com/post/${i++}</loc><image:image><image:loc>http://example.com/i/${i}.jpg</image:loc><image:caption>${caption}</image:caption></image:image></url>\n`;
        }
        const chunk = Buffer.from(pending.slice(0, CHUNK));
        pending = pending.slice(CHUNK);
        produced += chunk.length;
        yield chunk;
      }
    }
    let entries = 0;
    const r = await readSitemap(generate(), {
      url: SM,
      onEntry: () => {
        entries++;
      },
    });
    expect(r.stopped).toBe('max-bytes');
    expect(r.bytes).toBe(SITEMAP_LIMITS.maxBytes);
    expect(produced).toBeLessThan(TOTAL); // the rest of the stream was not even read
    expect(r.urls).toEqual([]); // streamed to onEntry, not collected
    expect(entries).toBe(r.count);
    expect(entries).toBeGreaterThan(35_000);
    expect(entries).toBeLessThan(SITEMAP_LIMITS.maxUrls);
    expect(r.warnings[0]).toMatch(/larger than 52428800 bytes uncompressed/);
    // Memory: the parser never held more than one chunk (plus the token it was in the middle of).
    expect(r.maxBufferedChars).toBeGreaterThan(0);
    expect(r.maxBufferedChars).toBeLessThanOrEqual(CHUNK + 2048);
  });

  it('holds no more than a chunk of a gzipped 60 MB sitemap either', async () => {
    const entry = `<url><loc>http://example.com/post/x</loc><image:image><image:caption>${'c'.repeat(1100)}</image:caption></image:image></url>\n`;
    const body = Buffer.from(
      `<urlset>${entry.repeat(Math.ceil((60 * 1024 * 1024) / entry.length))}</urlset>`,
    );
    const gz = gzipSync(body);
    const chunks = Array.from({ length: Math.ceil(gz.length / 16384) }, (_, i) =>
      gz.subarray(i * 16384, (i + 1) * 16384),
    );
    let entries = 0;
    const r = await readSitemap(chunks, { url: SM, onEntry: () => void entries++ });
    expect(r.gzip).toBe(true);
    expect(r.stopped).toBe('max-bytes');
    expect(entries).toBe(r.count);
    // zlib hands out 16 KiB pieces by default
    expect(r.maxBufferedChars).toBeLessThanOrEqual(64 * 1024 + 2048);
  });

  it('reads a large body handed over as one chunk, holding only a slice of it', async () => {
    const entries = Array.from(
      { length: 40_000 },
      (_, i) => `<url><loc>http://example.com/p/${i}</loc></url>`,
    );
    const body = Buffer.from(`<urlset>${entries.join('\n')}</urlset>`);
    expect(body.length).toBeGreaterThan(SITEMAP_LIMITS.maxTokenChars);
    const r = await read(body);
    expect(r.stopped).toBeNull();
    expect(r.count).toBe(40_000);
    expect(r.maxBufferedChars).toBeLessThanOrEqual(SITEMAP_LIMITS.sliceChars + 100);
  });

  it('stops a gzip bomb at maxBytes of output', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20)); // 20 MB of spaces, ~20 KB gzipped
    const r = await read(bomb, { maxBytes: 1024 * 1024 });
    expect(r.gzip).toBe(true);
    expect(r.stopped).toBe('max-bytes');
    expect(r.bytes).toBe(1024 * 1024);
  });

  it('abandons a file whose comment never ends instead of buffering it', async () => {
    function* endless(): Generator<Buffer> {
      yield Buffer.from('<urlset><url><loc>http://example.com/1</loc></url><!--');
      for (let i = 0; i < 40; i++) yield Buffer.alloc(64 * 1024, 0x61);
    }
    const r = await readSitemap(endless(), { url: SM });
    expect(r.stopped).toBe('token-too-long');
    expect(urlsOf(r)).toEqual(['http://example.com/1']);
    expect(r.bytes).toBeLessThan(40 * 64 * 1024);
  });
});

describe('SitemapParser', () => {
  it('holds no more than the current chunk between writes', () => {
    const p = new SitemapParser(SM, () => true);
    p.write('<urlset>');
    for (let i = 0; i < 1000; i++) {
      const chunk = `<url><loc>http://example.com/${i}</loc></url>`;
      p.write(chunk);
      expect(p.bufferedChars()).toBeLessThanOrEqual(chunk.length + 8);
    }
  });

  it('stops when the listener says so', () => {
    const seen: string[] = [];
    const p = new SitemapParser(SM, (e) => {
      seen.push(e.url);
      return seen.length < 2;
    });
    p.write('<urlset><url><loc>http://example.com/1</loc></url><url><loc>http://example.com/2</loc></url>');
    p.write('<url><loc>http://example.com/3</loc></url></urlset>');
    expect(seen).toEqual(['http://example.com/1', 'http://example.com/2']);
    expect(p.stopped).toBe(true);
  });
});
