/**
 * `--page-requisites` (wget -p): the images, stylesheets (with their fonts and imports), scripts
 * and icons pages load are fetched, also outside the crawl's prefix on the same site and past
 * --max-depth, never from another site; without the flag none of them is.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlArgs, readItems, runCli, tempDir } from '../fixtures/cli.js';
import { type FixtureServer, html, page, startServer } from '../fixtures/site-server.js';

let site: FixtureServer;
let other: FixtureServer;

const body = (type: string, text: string) => (_q: unknown, r: import('node:http').ServerResponse) => {
  r.writeHead(200, { 'content-type': type });
  r.end(text);
};

beforeAll(async () => {
  other = await startServer({ '/logo.png': body('image/png', 'PNG') }, undefined, '127.0.0.2');
  const head = [
    '<link rel="stylesheet" href="/static/site.css">',
    '<link rel="icon" href="/favicon.ico">',
    '<script src="/static/app.js"></script>',
    '<style>body { background: url("/static/bg.png") }</style>',
  ].join('');
  site = await startServer({
    '/docs/': html(
      `<html><head><title>Docs</title>${head}</head><body>` +
        '<img src="/static/a.png" srcset="/static/a-2x.png 2x, /static/a-3x.png 3x">' +
        '<picture><source srcset="/static/p.webp"><img src="/static/p.png"></picture>' +
        `<img src="${other.origin}/logo.png">` +
        '<a href="next.html">next</a><a href="/elsewhere/page.html">out</a></body></html>',
    ),
    '/docs/next.html': html(page('Next', [], '<img src="/static/deep.png">')),
    '/static/site.css': body('text/css', '@import "theme.css"; @font-face { src: url(fonts/f.woff2) }'),
    '/static/theme.css': body('text/css', "/* url(/static/commented.png) */ h1 { background: url('h.png') }"),
    '/static/fonts/f.woff2': body('font/woff2', 'WOFF'),
    '/static/h.png': body('image/png', 'PNG'),
    '/static/app.js': body('text/javascript', 'void 0'),
    '/static/bg.png': body('image/png', 'PNG'),
    '/static/a.png': body('image/png', 'PNG'),
    '/static/a-2x.png': body('image/png', 'PNG'),
    '/static/a-3x.png': body('image/png', 'PNG'),
    '/static/p.webp': body('image/webp', 'WEBP'),
    '/static/p.png': body('image/png', 'PNG'),
    '/static/deep.png': body('image/png', 'PNG'),
    '/favicon.ico': body('image/x-icon', 'ICO'),
    '/elsewhere/page.html': html(page('Out')),
  });
});

afterAll(async () => {
  await site.close();
  await other.close();
});

const REQUISITES = [
  '/static/site.css',
  '/favicon.ico',
  '/static/app.js',
  '/static/bg.png',
  '/static/a.png',
  '/static/a-2x.png',
  '/static/a-3x.png',
  '/static/p.webp',
  '/static/p.png',
  '/static/theme.css',
  '/static/fonts/f.woff2',
  '/static/h.png',
];

function paths(out: string): string[] {
  return readItems(out)
    .map((i) => new URL(i.url).pathname)
    .sort();
}

describe('--page-requisites', () => {
  it('off by default: pages only, in the prefix scope', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs(`${site.origin}/docs/`, out));
    expect(r.code).toBe(0);
    expect(paths(out)).toEqual(['/docs/', '/docs/next.html']);
  });

  it('fetches images, srcset, stylesheets with their imports and fonts, scripts, icons; same site only', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs(`${site.origin}/docs/`, out, '--page-requisites'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const got = paths(out);
    expect(got).toEqual([...REQUISITES, '/docs/', '/docs/next.html', '/static/deep.png'].sort());
    // Not a requisite: a page outside the prefix; another site's image; a commented-out url().
    expect(got).not.toContain('/elsewhere/page.html');
    expect(other.requests).toHaveLength(0);
    const items = readItems(out);
    const css = items.find((i) => i.url.endsWith('/static/site.css'));
    expect(css).toMatchObject({ status: 200, label: 'requisite', depth: 1 });
    expect(items.find((i) => i.url.endsWith('/static/fonts/f.woff2'))).toMatchObject({ depth: 2 });
  });

  it('fetches requisites past --max-depth, but not the pages there', async () => {
    const out = path.join(tempDir(), 'out');
    const r = await runCli(crawlArgs(`${site.origin}/docs/`, out, '--page-requisites', '--max-depth', '0'));
    expect(r.code).toBe(0);
    expect(paths(out)).toEqual([...REQUISITES, '/docs/'].sort());
  });
});
