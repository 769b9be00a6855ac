import { describe, expect, it } from 'vitest';
import {
  appShellRule,
  appShellSignals,
  EXTERNAL_SCRIPT_WEIGHT,
  NOSCRIPT_TEXT_MAX,
  ruleOf,
  SCRIPT_TO_TEXT_RATIO,
  THIN_LINKS_MAX,
  THIN_TEXT_MAX,
} from '../../src/extract/app-shell.js';
import { plainPage, SPA_SHELL } from '../fixtures/spa-site.js';

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
      '<div id="___gatsby"></div>',
      '<div id="svelte"></div>',
      '<div id="ember-app"></div>',
      '<main id="main-app"></main>',
      '<section id=root></section>',
      '<DIV ID="root"></DIV>',
      '<app-root></app-root>',
      '<app-root ng-version="17.0.0">\n  </app-root >',
    ]) {
      expect(appShellRule(doc(bundle, `<h1>Docs ${words(2000)}</h1>${links(20)}${root}`)), root).toBe(
        'empty-root',
      );
    }
    expect(appShellRule(SPA_SHELL)).toBe('empty-root');
  });

  it('an empty element with any other id is no mount element', () => {
    for (const other of [
      '<div id="sidebar"></div>',
      '<div id=""></div>',
      // a mount id is the whole id, not its start, and only the id attribute
      '<div id="rooted"></div>',
      "<div id='application'></div>",
      '<div id=app-banner></div>',
      '<div data-id="root"></div>',
    ]) {
      const html = doc(bundle, `<h1>Docs ${words(2000)}</h1>${links(20)}${other}`);
      expect(appShellSignals(html).emptyRoot, other).toBe(false);
      expect(appShellRule(html), other).toBeNull();
    }
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
      'Please enable the JavaScript of your browser.',
      'You need JavaScript to see this page.',
      'Our pages require JavaScript.',
      'This app requires a browser with JavaScript.',
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

  it('counts executable scripts, an inline one by its characters and an external one as a bundle', () => {
    const inline = 'var a = 1;\n  render(document.body);';
    const s = appShellSignals(doc(`<script>${inline}</script><script src = "/b.js"></script>`, ''));
    expect(s.scripts).toBe(2);
    expect(s.scriptWeight).toBe(inline.length + EXTERNAL_SCRIPT_WEIGHT);
    // data, however its type is written, is not code; a JSON script type other than these is
    for (const data of [
      '<script type="application/json">{"a": 1}</script>',
      '<script type=application/ld+json>{"a": 1}</script>',
      "<script type = 'importmap'>{}</script>",
      '<script type="text/x-template"><p>x</p></script>',
    ]) {
      expect(appShellSignals(doc(data, '')).scripts, data).toBe(0);
    }
    expect(appShellSignals(doc('<script type="module">go()</script>', '')).scripts).toBe(1);
  });

  it('counts visible text with tags, hidden elements and comments as one space, whitespace collapsed', () => {
    const text = (body: string) => appShellSignals(doc('', body)).textChars;
    expect(text('<p>a</p><p>b</p>')).toBe('a b'.length);
    expect(text('a<script>x = 1</script>b')).toBe('a b'.length);
    expect(text('<p>a  \n\t  b</p>')).toBe('a b'.length);
    expect(text('<p>seen</p><!-- if a > b, show the old banner -->')).toBe('seen'.length);
    expect(text('<style media="print">body { color: red }</style><p>seen</p>')).toBe('seen'.length);
  });

  it('counts links whatever their attributes and spacing, and only anchors with an href', () => {
    const s = appShellSignals(
      doc('', '<a class="nav" href="/a">a</a><a href = "/b">b</a><a name="top">t</a><area href="/c">'),
    );
    expect(s.links).toBe(2);
  });

  it('reads elements closed with a space before the >, and a noscript with attributes', () => {
    const s = appShellSignals(doc('<script>go()</script ><script>run()</script>', '<p>x</p>'));
    expect(s.scripts).toBe(2);
    expect(s.scriptWeight).toBe('go()'.length + 'run()'.length);
    const ns = '<noscript class="warn">Please enable JavaScript.</noscript ><p>x</p>';
    expect(appShellSignals(doc(bundle, ns)).noscriptAsks).toBe(true);
  });

  it('reads a noscript message across its tags', () => {
    expect(
      appShellSignals(doc(bundle, '<noscript>Please enable<br>JavaScript.</noscript>')).noscriptAsks,
    ).toBe(true);
  });

  it('applies each threshold strictly below its bound, the script ratio at or above it', () => {
    const signals = {
      scripts: 1,
      scriptWeight: 0,
      textChars: 0,
      links: 0,
      emptyRoot: false,
      noscriptAsks: false,
    };
    expect(ruleOf({ ...signals, noscriptAsks: true, textChars: NOSCRIPT_TEXT_MAX - 1 })).toBe('noscript');
    expect(ruleOf({ ...signals, noscriptAsks: true, textChars: NOSCRIPT_TEXT_MAX })).toBeNull();
    const thin = {
      ...signals,
      textChars: THIN_TEXT_MAX - 1,
      scriptWeight: SCRIPT_TO_TEXT_RATIO * (THIN_TEXT_MAX - 1),
    };
    expect(ruleOf(thin)).toBe('script-weight'); // weight exactly the ratio times the text
    expect(ruleOf({ ...thin, scriptWeight: thin.scriptWeight - 1 })).toBeNull();
    expect(
      ruleOf({ ...thin, textChars: THIN_TEXT_MAX, scriptWeight: SCRIPT_TO_TEXT_RATIO * THIN_TEXT_MAX }),
    ).toBeNull();
    expect(ruleOf({ ...thin, links: THIN_LINKS_MAX - 1 })).toBe('script-weight');
    expect(ruleOf({ ...thin, links: THIN_LINKS_MAX })).toBeNull();
    expect(ruleOf({ ...thin, scripts: 0 })).toBeNull();
  });
});
