/**
 * Declarative refresh, by the HTML Standard's "shared declarative refresh steps": parsing, the
 * first-wins rule, the Refresh header before <meta>, <noscript>, and the redirect delay limit.
 */
import { describe, expect, it } from 'vitest';
import { extractHtml } from '../../src/extract/html.js';
import { parseRefresh, REFRESH_REDIRECT_MAX_DELAY_S } from '../../src/extract/refresh.js';

const PAGE = 'http://h.example/dir/page.html';

describe('parseRefresh (steps 2-11)', () => {
  it.each([
    ['0; URL=/landing.html', 0, '/landing.html'],
    ['2;url=next.html', 2, 'next.html'],
    ['0;URL="quoted.html"', 0, 'quoted.html'],
    ["  1 ,  url = 'spaced.html' trailing", 1, 'spaced.html'],
    ['0; url="unterminated.html', 0, 'unterminated.html'],
    ['0;other.html', 0, 'other.html'],
    ['0 other.html', 0, 'other.html'],
    ['5.9; url=a.html', 5, 'a.html'],
    ['.5; url=a.html', 0, 'a.html'],
    // "u" then not "r": the URL is the remainder from the "u" (step 11.3 jumps to parse)
    ['0; ux.html', 0, 'ux.html'],
    ['0; URLx.html', 0, 'URLx.html'],
    ['0; url x.html', 0, 'url x.html'],
  ])('%j → delay %d, url %j', (input, delay, url) => {
    expect(parseRefresh(input)).toEqual({ delaySeconds: delay, url });
  });

  it('a delay alone refreshes the document itself', () => {
    expect(parseRefresh('5')).toEqual({ delaySeconds: 5, url: null });
    expect(parseRefresh(' 0 ; ')).toEqual({ delaySeconds: 0, url: null });
  });

  it('returns null where the steps return', () => {
    expect(parseRefresh('')).toBeNull();
    expect(parseRefresh('x; url=a.html')).toBeNull();
    expect(parseRefresh('5x; url=a.html')).toBeNull();
    expect(parseRefresh('-1; url=a.html')).toBeNull();
  });
});

describe('extractHtml: declarative refresh', () => {
  const meta = (content: string) => `<meta http-equiv="refresh" content="${content}">`;

  it('resolves a short refresh as the page redirect, any case and quoting', () => {
    expect(extractHtml('<META HTTP-EQUIV=REFRESH CONTENT="0; URL=/landing.html">', PAGE).refresh).toBe(
      'http://h.example/landing.html',
    );
    expect(extractHtml(meta('2;url=next.html'), PAGE).refresh).toBe('http://h.example/dir/next.html');
    expect(extractHtml(`<meta content='0; url="q.html"' http-equiv='Refresh'>`, PAGE).refresh).toBe(
      'http://h.example/dir/q.html',
    );
  });

  it(`a delay over ${REFRESH_REDIRECT_MAX_DELAY_S} s is no redirect: the URL is a link`, () => {
    const x = extractHtml(`${meta('60; url=later.html')}<a href="a.html">a</a>`, PAGE);
    expect(x.refresh).toBeNull();
    expect(x.links).toEqual(['http://h.example/dir/a.html', 'http://h.example/dir/later.html']);
    expect(extractHtml(meta(`${REFRESH_REDIRECT_MAX_DELAY_S}; url=b.html`), PAGE).refresh).toBe(
      'http://h.example/dir/b.html',
    );
  });

  it('the first refresh that parses wins, even one without URL; unparsable ones are skipped', () => {
    expect(extractHtml(meta('x; url=bad.html') + meta('0; url=good.html'), PAGE).refresh).toBe(
      'http://h.example/dir/good.html',
    );
    expect(extractHtml(meta('5') + meta('0; url=late.html'), PAGE).refresh).toBeNull();
    expect(extractHtml(meta('') + meta('0; url=next.html'), PAGE).refresh).toBe(
      'http://h.example/dir/next.html',
    );
  });

  it('ignores a refresh to the page itself, to a non-http URL, and inside <noscript>', () => {
    expect(extractHtml(meta('0; url=page.html'), PAGE).refresh).toBeNull();
    expect(extractHtml(meta('0; url=javascript:void(0)'), PAGE).refresh).toBeNull();
    expect(extractHtml(`<noscript>${meta('0; url=nojs.html')}</noscript>`, PAGE).refresh).toBeNull();
    expect(extractHtml(`<noscript></noscript>${meta('0; url=js.html')}`, PAGE).refresh).toBe(
      'http://h.example/dir/js.html',
    );
  });

  it('the Refresh header comes before any <meta>', () => {
    const x = extractHtml(meta('0; url=meta.html'), PAGE, { refreshHeader: '0;url=header.html' });
    expect(x.refresh).toBe('http://h.example/dir/header.html');
  });

  it('resolves against <base href> seen before it', () => {
    expect(extractHtml(`<base href="/other/">${meta('0;url=x.html')}`, PAGE).refresh).toBe(
      'http://h.example/other/x.html',
    );
  });
});

describe('extractHtml: frames', () => {
  it('follows <frame src> and <iframe src> like links', () => {
    const html =
      '<frameset><frame src="nav.html"><FRAME SRC="main.html"></frameset>' +
      '<iframe src="widget.html"></iframe><iframe srcdoc="<p>x</p>"></iframe><iframe src="about:blank"></iframe>';
    expect(extractHtml(html, PAGE).links).toEqual([
      'http://h.example/dir/nav.html',
      'http://h.example/dir/main.html',
      'http://h.example/dir/widget.html',
    ]);
    expect(extractHtml(`<meta name="robots" content="nofollow">${html}`, PAGE).links).toEqual([]);
  });
});

describe('extractHtml: legacy encodings', () => {
  it('encodes queries in the document encoding and paths in UTF-8', () => {
    const x = extractHtml('<a href="к.html?q=Привет">x</a><base href="?b=Ё">', PAGE, {
      encoding: 'windows-1251',
    });
    expect(x.links).toEqual(['http://h.example/dir/%D0%BA.html?q=%CF%F0%E8%E2%E5%F2']);
  });
});

describe('extractHtml: text sketch', () => {
  it('is the same for pages differing only in numbers, and skips script and style', () => {
    const a = extractHtml('<h1>May 2024</h1><p>No events 1 2 3</p><script>var x=1</script>', PAGE, {
      sketch: true,
    });
    const b = extractHtml('<h1>May 1999</h1><p>No events 4 5</p><style>p{color:red}</style>', PAGE, {
      sketch: true,
    });
    expect(a.sketch).toEqual(b.sketch);
    expect(a.sketch).toHaveLength(4); // may, #, no, events
    expect(extractHtml('<p>x</p>', PAGE).sketch).toBeUndefined();
  });
});
