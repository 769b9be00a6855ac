import { describe, expect, it } from 'vitest';
import { cssUrls } from '../../src/extract/css-urls.js';
import { pageRequisites, srcsetUrls } from '../../src/extract/requisites.js';

const PAGE = 'http://127.0.0.1/docs/a/page.html';

describe('pageRequisites', () => {
  it('finds images, srcset, picture sources, stylesheets, icons, scripts, posters, inline CSS', () => {
    const html = `<html><head>
      <link rel="stylesheet" href="../s.css"><link rel="Shortcut Icon" href="/favicon.ico">
      <link rel="next" href="b.html"><link rel="alternate" href="feed.xml">
      <script src="app.js"></script><script>var x = "<img src='no.png'>";</script>
      <style>@import 'theme.css'; div { background: url(bg.png) }</style>
    </head><body style="background-image: url('body.png')">
      <img src="i.png" srcset="i-1.png 1x, i-2.png 2x"><picture><source srcset="p.webp 480w, p2.webp 800w"></picture>
      <input type="image" src="btn.png"><input type="text" src="not.png"><video poster="v.jpg"></video>
      <a href="page2.html">a page</a><img src="data:image/png;base64,AAAA"><img src="i.png">
    </body></html>`;
    const rel = (u: string) => u.replace('http://127.0.0.1', '');
    expect(pageRequisites(html, PAGE).map(rel)).toEqual([
      '/docs/s.css',
      '/favicon.ico',
      '/docs/a/app.js',
      '/docs/a/theme.css',
      '/docs/a/bg.png',
      '/docs/a/body.png',
      '/docs/a/i.png',
      '/docs/a/i-1.png',
      '/docs/a/i-2.png',
      '/docs/a/p.webp',
      '/docs/a/p2.webp',
      '/docs/a/btn.png',
      '/docs/a/v.jpg',
    ]);
  });

  it('resolves against the first <base href>', () => {
    const html =
      '<base href="http://127.0.0.1/assets/"><img src="x.png"><base href="/other/"><img src="y.png">';
    expect(pageRequisites(html, PAGE)).toEqual([
      'http://127.0.0.1/assets/x.png',
      'http://127.0.0.1/assets/y.png',
    ]);
  });
});

describe('srcsetUrls', () => {
  it('splits candidates as HTML does: commas inside URLs, descriptors with parentheses', () => {
    expect(srcsetUrls('a.png 1x,b.png 2x')).toEqual(['a.png', 'b.png']);
    // A URL runs to whitespace (`c.png,d.png` is one); trailing commas end it (`e.png,`).
    expect(srcsetUrls('  a,b.png 100w ,  c.png,d.png 2x, e.png, f.png')).toEqual([
      'a,b.png',
      'c.png,d.png',
      'e.png',
      'f.png',
    ]);
    expect(srcsetUrls('x.png (a, b), y.png')).toEqual(['x.png', 'y.png']);
    expect(srcsetUrls('')).toEqual([]);
  });
});

describe('cssUrls', () => {
  it('finds @import and url() in order, skipping comments, data: and fragment references', () => {
    const css = `@import url("reset.css"); @import 'theme.css' screen;
      /* url(commented.png) */ .a { background: url( img/a.png ) } .b { mask: url(#m) }
      @font-face { src: url('f.woff2') format('woff2'), url(data:font/woff;base64,AA) }
      .c { background: url(img/a.png) } .d { background: url(sp\\28 1\\29.png) }`;
    expect(cssUrls(css, 'http://127.0.0.1/static/site.css')).toEqual([
      'http://127.0.0.1/static/reset.css',
      'http://127.0.0.1/static/theme.css',
      'http://127.0.0.1/static/img/a.png',
      'http://127.0.0.1/static/f.woff2',
      'http://127.0.0.1/static/sp(1).png',
    ]);
  });
});
