import { describe, expect, it } from 'vitest';
import {
  appShellRule,
  appShellSignals,
  EXTERNAL_SCRIPT_WEIGHT,
  NOSCRIPT_TEXT_MAX,
  THIN_LINKS_MAX,
  THIN_TEXT_MAX,
} from '../../src/extract/app-shell.js';
import { SPA_SHELL, plainPage } from '../fixtures/spa-site.js';

const doc = (head: string, body: string) =>
  `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;
const bundle = '<script src="/static/js/main.4f2a.js"></script>';
const words = (n: number) => 'lorem ipsum '.repeat(Math.ceil(n / 12)).slice(0, n);
const links = (n: number) => Array.from({ length: n }, (_, i) => `<a href="/p/${i}">p${i}</a>`).join('');

describe('appShellRule', () => {
  it('finds the empty mount elements of the common frameworks', () => {
    for (const root of [
      '<div id="root"></div>',
      "<div id='app'>\n  </div>",
      '<div id="__next"><!-- filled by the client --></div>',
      '<div class="x" id="__nuxt" data-v></div>',
      '<app-root></app-root>',
    ]) {
      expect(appShellRule(doc(bundle, `<h1>Docs ${words(2000)}</h1>${links(20)}${root}`)), root).toBe(
        'empty-root',
      );
    }
    expect(appShellRule(SPA_SHELL)).toBe('empty-root');
  });

  it('a mount element with content is not empty', () => {
    const html = doc(
      bundle,
      `<div id="root"><h1>Server-rendered</h1><p>${words(2000)}</p>${links(10)}</div>`,
    );
    expect(appShellSignals(html).emptyRoot).toBe(false);
    expect(appShellRule(html)).toBeNull();
  });

  it('a noscript asking for JavaScript makes a shell only with little text', () => {
    const asks = '<noscript>Please enable JavaScript to view this site.</noscript>';
    expect(
      appShellRule(doc(bundle, `${asks}<main>${words(NOSCRIPT_TEXT_MAX - 100)}</main>${links(10)}`)),
    ).toBe('noscript');
    expect(
      appShellRule(doc(bundle, `${asks}<main>${words(NOSCRIPT_TEXT_MAX + 100)}</main>${links(10)}`)),
    ).toBeNull();
    // A noscript with other content (a tracking pixel) asks for nothing.
    const pixel = '<noscript><img src="/pixel.gif"></noscript>';
    expect(appShellSignals(doc(bundle, pixel)).noscriptAsks).toBe(false);
    for (const text of [
      'This app requires JavaScript.',
      'JavaScript is disabled in your browser.',
      'Turn on JavaScript',
    ]) {
      expect(appShellSignals(doc(bundle, `<noscript><p>${text}</p></noscript>`)).noscriptAsks, text).toBe(
        true,
      );
    }
  });

  it('little text and few links against script weight make a shell', () => {
    const thin = `<main>${words(THIN_TEXT_MAX - 100)}</main>${links(THIN_LINKS_MAX - 1)}`;
    expect(appShellRule(doc(bundle, thin))).toBe('script-weight');
    // the same page with enough links, enough text, or light script is a page
    expect(
      appShellRule(doc(bundle, `<main>${words(THIN_TEXT_MAX - 100)}</main>${links(THIN_LINKS_MAX)}`)),
    ).toBeNull();
    expect(appShellRule(doc(bundle, `<main>${words(THIN_TEXT_MAX + 10)}</main>`))).toBeNull();
    expect(appShellRule(doc('<script>var a=1</script>', thin))).toBeNull();
    expect(appShellSignals(doc(bundle + bundle, thin)).scriptWeight).toBe(2 * EXTERNAL_SCRIPT_WEIGHT);
  });

  it('a page without an executable script is never a shell; JSON data scripts do not count', () => {
    expect(appShellRule(doc('', '<div id="root"></div>'))).toBeNull();
    const data = '<script type="application/ld+json">{"@type":"Article"}</script>';
    expect(appShellSignals(doc(data, '')).scripts).toBe(0);
    expect(appShellRule(doc(data, '<div id="root"></div>'))).toBeNull();
  });

  it('text inside scripts, styles, templates and the head is not visible text', () => {
    const s = appShellSignals(
      doc(
        '<style>body{color:red}</style>',
        `<script>var x = "${words(3000)}";</script><template>${words(3000)}</template><p>seen</p>`,
      ),
    );
    expect(s.textChars).toBe('seen'.length);
  });

  it('a plain server-rendered page with an analytics snippet is not a shell', () => {
    expect(appShellRule(plainPage('Plain', ['/a']))).toBeNull();
  });
});
