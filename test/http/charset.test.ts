import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeBody, META_LATE_PRESCAN_BYTES, sniffEncoding } from '../../src/http/charset.js';

/** [WHATWG name, label a server would send, a title only that encoding can carry] */
const ENCODINGS: Array<[string, string, string]> = [
  ['Shift_JIS', 'shift_jis', '日本語のページ「テスト」'],
  ['EUC-JP', 'euc-jp', '日本語のページ、東京'],
  ['GBK', 'gbk', '中文网页标题'],
  ['gb18030', 'GB18030', '中文网页 😀 标题'],
  ['Big5', 'big5', '繁體中文網頁標題'],
  ['EUC-KR', 'euc-kr', '한국어 페이지 제목'],
  ['windows-1251', 'windows-1251', 'Привет, мир — заголовок'],
  ['KOI8-R', 'koi8-r', 'Привет, мир'],
  ['windows-1252', 'windows-1252', 'Café crème – naïve € “quoted”'],
  ['ISO-8859-2', 'iso-8859-2', 'Zażółć gęślą jaźń'],
  ['ISO-8859-7', 'iso-8859-7', 'Καλημέρα κόσμε'],
  ['windows-1256', 'windows-1256', 'مرحبا بالعالم'],
];

function page(title: string, head = ''): string {
  return `<!DOCTYPE html>\n<html><head>${head}<title>${title}</title></head><body><h1>${title}</h1></body></html>`;
}

/** Deterministic pseudo-random bytes. */
function garbage(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('decodeBody: legacy encodings', () => {
  for (const [name, label, title] of ENCODINGS) {
    it(`${name} from the Content-Type charset`, () => {
      const html = page(title);
      const body = iconv.encode(html, name);
      expect(body.equals(Buffer.from(html))).toBe(false); // really not UTF-8
      const r = decodeBody(body, `text/html; charset=${label}`, true);
      expect(r).toEqual({ text: html, encoding: name, source: 'header' });
    });

    it(`${name} from <meta charset>`, () => {
      const html = page(title, `<meta charset="${label}">`);
      const r = decodeBody(iconv.encode(html, name), 'text/html', true);
      expect(r).toEqual({ text: html, encoding: name, source: 'meta' });
    });

    it(`${name} from <meta http-equiv content>`, () => {
      const html = page(title, `<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=${label}">`);
      const r = decodeBody(iconv.encode(html, name), null, true);
      expect(r).toEqual({ text: html, encoding: name, source: 'meta' });
    });
  }
});

describe('decodeBody: UTF-8 and UTF-16', () => {
  const title = 'Ünïcödé 日本語 😀';

  it('UTF-8 with BOM: BOM wins and is stripped', () => {
    const html = page(title);
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html)]);
    expect(decodeBody(body, 'text/html; charset=windows-1252', true)).toEqual({
      text: html,
      encoding: 'UTF-8',
      source: 'bom',
    });
  });

  for (const name of ['UTF-16LE', 'UTF-16BE']) {
    it(`${name} from its BOM, over a contradicting header`, () => {
      const html = page(title);
      const body = iconv.encode(html, name, { addBOM: true });
      expect(decodeBody(body, 'text/html; charset=iso-8859-1', true)).toEqual({
        text: html,
        encoding: name,
        source: 'bom',
      });
    });

    it(`${name} from the header without BOM`, () => {
      const html = page(title);
      const r = decodeBody(iconv.encode(html, name), `text/html; charset="${name.toLowerCase()}"`, true);
      expect(r).toEqual({ text: html, encoding: name, source: 'header' });
    });
  }

  it('plain UTF-8 without any declaration is the default', () => {
    const html = page(title);
    expect(decodeBody(Buffer.from(html), 'text/html', true)).toEqual({
      text: html,
      encoding: 'UTF-8',
      source: 'default',
    });
  });

  it('a <meta> declaring UTF-16 in an ASCII-compatible page means UTF-8', () => {
    const html = page(title, '<meta charset="utf-16">');
    expect(decodeBody(Buffer.from(html), 'text/html', true)).toEqual({
      text: html,
      encoding: 'UTF-8',
      source: 'meta',
    });
  });
});

describe('sniffEncoding: precedence and labels', () => {
  it('header wins over meta', () => {
    const html = page('Привет', '<meta charset="koi8-r">');
    const body = iconv.encode(html, 'windows-1251');
    const r = decodeBody(body, 'text/html;charset=windows-1251', true);
    expect(r.encoding).toBe('windows-1251');
    expect(r.source).toBe('header');
    expect(r.text).toBe(html);
  });

  it('a bogus header label is ignored: meta then decides, else UTF-8', () => {
    const html = page('Café', '<meta charset="windows-1252">');
    expect(sniffEncoding(iconv.encode(html, 'windows-1252'), 'text/html; charset=bogus-x', true)).toEqual({
      encoding: 'windows-1252',
      source: 'meta',
    });
    const plain = page('Café');
    expect(decodeBody(Buffer.from(plain), 'text/html; charset=no-such-charset', true)).toEqual({
      text: plain,
      encoding: 'UTF-8',
      source: 'default',
    });
    expect(sniffEncoding(Buffer.from('<meta charset="foo">'), null, true).source).toBe('default');
  });

  it('iso-8859-1, latin1 and ascii labels mean windows-1252 (0x80 is €)', () => {
    for (const label of ['iso-8859-1', 'ISO_8859-1', 'latin1', 'us-ascii', 'ascii']) {
      const r = decodeBody(Buffer.from([0x80, 0x20, 0xe9]), `text/plain; charset=${label}`, false);
      expect(r).toEqual({ text: '€ é', encoding: 'windows-1252', source: 'header' });
    }
  });

  it('parses quoted, spaced and multi-parameter Content-Type values', () => {
    const cases: Array<[string, string]> = [
      ['text/html; charset="Shift_JIS"', 'Shift_JIS'],
      ['text/html ; Charset = euc-jp ', 'EUC-JP'],
      ['text/html; format=flowed; charset=utf-8; q=1', 'UTF-8'],
      ['text/html;charset=x-sjis', 'Shift_JIS'],
      ['text/html; charset=gb2312', 'GBK'],
    ];
    for (const [ct, expected] of cases) {
      expect(sniffEncoding(Buffer.from('<p>x</p>'), ct, true)).toEqual({
        encoding: expected,
        source: 'header',
      });
    }
    expect(sniffEncoding(Buffer.from('x'), 'text/html; xcharset=koi8-r', true).source).toBe('default');
  });

  it('meta prescan only for HTML; ignores comments and attributes of other tags', () => {
    const meta = Buffer.from('<meta charset="koi8-r">');
    expect(sniffEncoding(meta, 'text/plain', false).source).toBe('default');
    expect(sniffEncoding(meta, null, true)).toEqual({ encoding: 'KOI8-R', source: 'meta' });

    const commented = Buffer.from('<!-- <meta charset="koi8-r"> --><meta charset=shift_jis>');
    expect(sniffEncoding(commented, null, true).encoding).toBe('Shift_JIS');
    const inAttr = Buffer.from('<a title="<meta charset=koi8-r>">x</a><meta charset=euc-kr>');
    expect(sniffEncoding(inAttr, null, true).encoding).toBe('EUC-KR');
    // http-equiv missing: the content charset does not count (spec "need pragma")
    const noPragma = Buffer.from('<meta content="text/html; charset=koi8-r">');
    expect(sniffEncoding(noPragma, null, true).source).toBe('default');
    // first occurrence of an attribute wins; charset attribute beats a later content
    const both = Buffer.from(
      '<meta charset="big5" charset="koi8-r" http-equiv="content-type" content="text/html;charset=gbk">',
    );
    expect(sniffEncoding(both, null, true).encoding).toBe('Big5');
  });

  it('meta past the first 1024 bytes: ignored for UTF-8 bodies, found when the body is not UTF-8', () => {
    const filler = `<script>/* ${'x'.repeat(2000)} */</script>`;
    const html = `<html><head>${filler}<meta charset="windows-1251"><title>Привет</title></head></html>`;
    const legacy = iconv.encode(html, 'windows-1251');
    expect(decodeBody(legacy, 'text/html', true)).toEqual({
      text: html,
      encoding: 'windows-1251',
      source: 'meta',
    });
    const utf8 = Buffer.from(html);
    expect(sniffEncoding(utf8, 'text/html', true)).toEqual({ encoding: 'UTF-8', source: 'default' });
  });

  it('XML declaration decides for non-HTML bodies (feeds, sitemaps)', () => {
    const xml = '<?xml version="1.0" encoding="windows-1251"?><rss><title>Новости</title></rss>';
    expect(decodeBody(iconv.encode(xml, 'windows-1251'), 'application/rss+xml', false)).toEqual({
      text: xml,
      encoding: 'windows-1251',
      source: 'meta',
    });
    const header = decodeBody(Buffer.from(xml), 'application/xml; charset=utf-8', false);
    expect(header.encoding).toBe('UTF-8');
  });

  it('x-user-defined and unsupported-but-known labels never break decoding', () => {
    expect(decodeBody(Buffer.from([0x41, 0x80]), 'text/html; charset=x-user-defined', true).encoding).toBe(
      'windows-1252',
    );
    // iso-2022-jp is a WHATWG label iconv-lite cannot decode; treated as unknown
    const r = decodeBody(Buffer.from('hello'), 'text/html; charset=iso-2022-jp', true);
    expect(r).toEqual({ text: 'hello', encoding: 'UTF-8', source: 'default' });
  });
});

describe('robustness', () => {
  const contentTypes = [
    null,
    'text/html',
    'text/html; charset=',
    'text/html; charset="',
    'text/html; charset=utf-16le',
    'text/html; charset=shift_jis',
    'text/html; charset=gb18030',
    'text/html; charset=big5',
    'text/html; charset=x-user-defined',
    ';;;charset=;=;',
    `text/html; charset=${'a'.repeat(10_000)}`,
  ];

  it('binary garbage never throws, for any content type', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const body = garbage(seed * 97, seed);
      for (const ct of contentTypes) {
        for (const isHtml of [true, false]) {
          const r = decodeBody(body, ct, isHtml);
          expect(typeof r.text).toBe('string');
        }
      }
    }
  });

  it('truncated and hostile markup never throws', () => {
    const inputs = [
      '',
      '<',
      '<meta',
      '<meta ',
      '<meta charset',
      '<meta charset=',
      '<meta charset="utf',
      '<!--',
      '<!-->',
      '<a href="',
      '<?xml',
      '<?xml version="1.0" encoding="',
      `${'<a x="'.repeat(5000)}`,
      `${'<meta '.repeat(3000)}`,
      `<meta http-equiv=content-type content='charset=`,
    ];
    for (const input of inputs) {
      const body = Buffer.concat([
        Buffer.from(input, 'latin1'),
        Buffer.from([0xff, 0xfe].slice(0, input.length % 2)),
      ]);
      expect(() => decodeBody(body, 'text/html', true)).not.toThrow();
      expect(() => decodeBody(Buffer.from(input), null, false)).not.toThrow();
    }
    expect(decodeBody(Buffer.alloc(0), null, true)).toEqual({
      text: '',
      encoding: 'UTF-8',
      source: 'default',
    });
  });

  // Speed is the benchmark's business; what a test can pin down is the prescan's bound, which is
  // what keeps hostile markup cheap: it never looks past META_LATE_PRESCAN_BYTES. (The timeout
  // only catches a runaway loop, with a wide margin.)
  it('hostile markup: the prescan stops at its byte bound and decides the same way', {
    timeout: 20_000,
  }, () => {
    const hostile = Buffer.from('<meta '.repeat(2000)); // 12,000 bytes of <meta> without a charset
    const meta = Buffer.from('<meta charset="windows-1251">');
    const notUtf8 = Buffer.from([0xff]);
    const within = Buffer.concat([hostile, meta, notUtf8]);
    expect(within.length).toBeLessThan(META_LATE_PRESCAN_BYTES);
    expect(sniffEncoding(within, 'text/html', true)).toEqual({ encoding: 'windows-1251', source: 'meta' });
    // the same declaration just past the bound is not seen
    const pad = Buffer.alloc(META_LATE_PRESCAN_BYTES - hostile.length, 0x20);
    const past = Buffer.concat([hostile, pad, meta, notUtf8]);
    expect(sniffEncoding(past, 'text/html', true)).toEqual({ encoding: 'UTF-8', source: 'default' });
    // an attribute value that never closes swallows the rest of the bound: nothing found, no throw
    const open = Buffer.concat([Buffer.from('<a x="'.repeat(3000)), notUtf8]);
    for (let i = 0; i < 50; i++) expect(decodeBody(open, 'text/html', true).source).toBe('default');
  });
});

describe('<meta> prescan: the spec algorithm, case by case (mutation testing)', () => {
  const W = 'windows-1251';
  /** The prescan's answer for an HTML document: an encoding name, or null for none found. */
  const meta = (html: string): string | null => {
    const r = sniffEncoding(Buffer.from(html, 'latin1'), null, true);
    return r.source === 'meta' ? r.encoding : null;
  };
  const cases: Array<[string, string, string | null]> = [
    // comments
    ['a comment hides a meta, even with a > inside it', `<!-- a > b <meta charset="${W}"> -->`, null],
    ['"<--" is no comment', `<-- <meta charset="${W}"> -->`, W],
    ['an unterminated comment ends the prescan', `<!-- <meta charset="${W}">`, null],
    // which tags are metas
    ['<meta/ is a meta', `<meta/charset="${W}">`, W],
    ['<p><meta/ is a meta too', `<p><meta/charset="${W}">`, W],
    ['<metax is not a meta', `<metax charset="${W}">`, null],
    ['<mark is not a meta', `<mark charset="${W}">`, null],
    ['a meta without charset does not stop the prescan', `<meta name="x"><meta charset="${W}">`, W],
    // other tags and markup
    ['an end tag keeps its attributes', `</a title=">" <meta charset="${W}">`, null],
    ['"<!x" is skipped to the next > only', `<!a title=">" <meta charset="${W}">`, W],
    ['a tag name ends at >, even inside a quote', `<a=">"<meta charset="${W}">`, W],
    ['"< " is no tag', `< <meta charset="${W}">`, W],
    ['"<!x" swallows a meta up to its >', `<!x <meta charset="${W}">`, null],
    ['"</1" swallows a meta up to its >', `</1 <meta charset="${W}">`, null],
    ['"<?x" swallows a meta up to its >', `<?x <meta charset="${W}">`, null],
    ['"<p><!x>" then a meta', `<p><!x><meta charset="${W}">`, W],
    // attributes
    [
      'the first of two http-equiv wins',
      `<meta http-equiv="x" http-equiv="content-type" content="text/html; charset=${W}">`,
      null,
    ],
    [
      'only http-equiv=content-type is the pragma',
      `<meta http-equiv="refresh" content="text/html; charset=${W}">`,
      null,
    ],
    [
      'an unquoted http-equiv is lowercased, not uppercased',
      `<meta http-equiv=Content-Type content="text/html; charset=${W}">`,
      W,
    ],
    [
      'content without a charset is no declaration',
      '<meta http-equiv="content-type" content="text/html">',
      null,
    ],
    [
      'content without a charset leaves room for a charset attribute',
      `<meta content="text/html" charset="${W}">`,
      W,
    ],
    [
      'a charset attribute after a content charset is ignored',
      `<meta http-equiv="content-type" content="text/html; charset=koi8-r" charset="${W}">`,
      'KOI8-R',
    ],
    ['spaces around =', `<meta charset = "${W}">`, W],
    ['spaces after =', `<meta charset= "${W}">`, W],
    ['single quotes', `<meta charset='${W}'>`, W],
    ['a / ends an attribute name', `<meta a/charset="${W}">`, W],
    ['a > ends the meta', `<meta a><p charset="${W}">`, null],
    ['an empty value, then another meta', `<meta charset=><meta charset="${W}">`, W],
    ['input ending in an unquoted value', `<meta charset=${W}`, null],
    // the content attribute
    ['content starting with charset', `<meta http-equiv="content-type" content="charset=${W}">`, W],
    ['content: spaces before =', `<meta http-equiv="content-type" content="text/html; charset =${W}">`, W],
    ['content: spaces after =', `<meta http-equiv="content-type" content="text/html; charset= ${W}">`, W],
    [
      'content: a "charset" not followed by =',
      `<meta http-equiv="content-type" content="charsetx; charset=${W}">`,
      W,
    ],
    [
      'content: charset= at the end, then a charset attribute',
      `<meta http-equiv="content-type" content="text/html; charset=" charset="${W}">`,
      W,
    ],
    [
      'content: single-quoted label',
      `<meta http-equiv="content-type" content="text/html; charset='${W}'">`,
      W,
    ],
    [
      'content: double-quoted label',
      `<meta http-equiv="content-type" content='text/html; charset="${W}"'>`,
      W,
    ],
    [
      'content: an unterminated quoted label',
      `<meta http-equiv="content-type" content="text/html; charset='${W}x">`,
      null,
    ],
    [
      'content: ; ends the label',
      `<meta http-equiv="content-type" content="text/html; charset=${W};x=y">`,
      W,
    ],
    // what counts as space, letters, tags
    ['a tab after <meta', `<meta\tcharset="${W}">`, W],
    ['a line feed after <meta', `<meta\ncharset="${W}">`, W],
    ['a form feed after <meta', `<meta\fcharset="${W}">`, W],
    ['a carriage return after <meta', `<meta\rcharset="${W}">`, W],
    ['an uppercase tag keeps its attributes (A)', `<A title="<meta charset=${W}>">`, null],
    ['an uppercase tag keeps its attributes (Z)', `<Z title="<meta charset=${W}>">`, null],
    ['a lowercase tag keeps its attributes (z)', `<z title="<meta charset=${W}>">`, null],
    ['"<_" is no tag', `<_ <meta charset="${W}">`, W],
    ['"<{" is no tag', `<{ <meta charset="${W}">`, W],
    ['attribute names are lowercased', `<meta CHARSET="${W}">`, W],
    ['no < no tag', `<p>Xmeta charset="${W}"> text`, null],
    ['"<1--" is no comment', `<1-- <meta charset="${W}"> -->`, W],
    ['a tag name runs to a space or >, = included', `<ab=">"<meta charset="${W}">`, W],
    ['an attribute name may start with =', `<meta =">" charset="${W}">`, null],
    ['a name and spaces without = is a name alone', `<meta charset x${W}>`, null],
    ['<meta charset=utf-16be> means UTF-8', '<meta charset="utf-16be">', 'UTF-8'],
    ['<meta charset=utf-16le> means UTF-8', '<meta charset="utf-16le">', 'UTF-8'],
  ];
  for (const [name, html, expected] of cases) {
    it(name, () => {
      expect(meta(html.length >= 6 ? html : `${html}      `)).toBe(
        expected === W ? 'windows-1251' : expected,
      );
    });
  }
});

describe('BOM, XML declaration and fallbacks (mutation testing)', () => {
  it('a BOM needs all its bytes, and nothing more', () => {
    expect(sniffEncoding(Buffer.from([0xfe, 0xff]), null, false)).toEqual({
      encoding: 'UTF-16BE',
      source: 'bom',
    });
    expect(sniffEncoding(Buffer.from([0xff, 0xfe]), null, false)).toEqual({
      encoding: 'UTF-16LE',
      source: 'bom',
    });
    expect(sniffEncoding(Buffer.from([0xef, 0xbb, 0xbf]), null, false)).toEqual({
      encoding: 'UTF-8',
      source: 'bom',
    });
    for (const bytes of [
      [0xef, 0x00, 0xbf, 0x41],
      [0xef, 0xbb, 0x00, 0x41],
      [0xfe, 0x00, 0x41, 0x41],
      [0xff, 0x00, 0x41, 0x41],
    ]) {
      expect(sniffEncoding(Buffer.from(bytes), null, false), JSON.stringify(bytes)).toEqual({
        encoding: 'UTF-8',
        source: 'default',
      });
    }
  });

  it('a BOM is all its bytes, from the first one', () => {
    for (const bytes of [
      [0x00, 0xbb, 0xbf, 0x41],
      [0x41, 0xff, 0x41, 0x41],
      [0x41, 0xfe, 0x41, 0x41],
    ]) {
      expect(sniffEncoding(Buffer.from(bytes), null, false), JSON.stringify(bytes)).toEqual({
        encoding: 'UTF-8',
        source: 'default',
      });
    }
  });

  it('a Content-Type charset is found even right after the first ;', () => {
    expect(sniffEncoding(Buffer.from('x'), ';charset=windows-1251', false)).toEqual({
      encoding: 'windows-1251',
      source: 'header',
    });
  });

  it('GBK is decoded as gb18030 (WHATWG), so its four-byte sequences decode', () => {
    const r = decodeBody(Buffer.from([0x81, 0x30, 0x81, 0x30]), 'text/plain; charset=gbk', false);
    expect(r.encoding).toBe('GBK');
    expect(r.text).toBe('\u0080');
  });

  it('an XML declaration counts only in the first 256 bytes', () => {
    const late = `<?xml version="1.0"${' '.repeat(300)} encoding="windows-1251"?><feed/>`;
    expect(sniffEncoding(Buffer.from(late), null, false)).toEqual({ encoding: 'UTF-8', source: 'default' });
    const early = '<?xml version="1.0" encoding="windows-1251"?><feed/>';
    expect(sniffEncoding(Buffer.from(early), null, false)).toEqual({
      encoding: 'windows-1251',
      source: 'meta',
    });
    const spaced = '<?xml version="1.0" encoding = "windows-1251"?><feed/>';
    expect(sniffEncoding(Buffer.from(spaced), null, false)).toEqual({
      encoding: 'windows-1251',
      source: 'meta',
    });
    // only the declaration at the very start counts
    const second = '<?xml version="1.0"?><?xml version="1.0" encoding="windows-1251"?><feed/>';
    expect(sniffEncoding(Buffer.from(second), null, false)).toEqual({ encoding: 'UTF-8', source: 'default' });
  });
});
