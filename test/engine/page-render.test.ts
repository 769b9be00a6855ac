import { describe, expect, it } from 'vitest';
import { HOST_STREAK, HOSTS_KEPT, PageRendering } from '../../src/engine/page-render.js';
import type { SessionCookie } from '../../src/http/cookie-jar.js';
import { type PageRenderer, type RenderedPage, Renderer, type RenderJob } from '../../src/http/renderer.js';

/** A render step whose browser is never started (route and host learning only). */
function rendering(mode: 'auto' | 'always'): PageRendering {
  return new PageRendering({
    mode,
    renderer: new Renderer({ concurrency: 1, timeoutMs: 1000, userAgent: 'test' }),
    fetcher: { cookiesFor: () => [] },
    frontier: { pauseHost: () => {} },
    delayMs: 0,
    signal: new AbortController().signal,
  });
}

describe('PageRendering routes', () => {
  it('only HTML goes to the browser; a response without a type is left to the HTTP read', () => {
    const r = rendering('auto');
    expect(r.route('a:1', 'application/json')).toBeNull();
    expect(r.route('a:1', 'image/png')).toBeNull();
    expect(r.route('a:1', 'text/html; charset=utf-8')).toBe('check');
    expect(r.route('a:1', 'application/xhtml+xml')).toBe('check');
    expect(r.route('a:1', null)).toBe('check');
  });

  it('always: every HTML page is rendered directly', () => {
    const r = rendering('always');
    expect(r.route('a:1', 'text/html')).toBe('direct');
    expect(r.route('a:1', 'text/css')).toBeNull();
  });

  it(`auto: ${HOST_STREAK} app shells in a row send a host to the browser directly, ${HOST_STREAK} plain pages in a row bring it back`, () => {
    const r = rendering('auto');
    for (let i = 0; i < HOST_STREAK - 1; i++) r.noted('spa:1', true);
    expect(r.route('spa:1', 'text/html')).toBe('check');
    r.noted('spa:1', false); // the run is broken
    for (let i = 0; i < HOST_STREAK - 1; i++) r.noted('spa:1', true);
    expect(r.route('spa:1', 'text/html')).toBe('check');
    r.noted('spa:1', true);
    expect(r.route('spa:1', 'text/html')).toBe('direct');
    expect(r.route('spa:1', null)).toBe('check'); // a page without a type is still read over HTTP first
    expect(r.route('other:1', 'text/html')).toBe('check');
    for (let i = 0; i < HOST_STREAK - 1; i++) r.noted('spa:1', false);
    r.noted('spa:1', true);
    for (let i = 0; i < HOST_STREAK - 1; i++) r.noted('spa:1', false);
    expect(r.route('spa:1', 'text/html')).toBe('direct');
    r.noted('spa:1', false);
    expect(r.route('spa:1', 'text/html')).toBe('check');
  });

  it('always does not learn', () => {
    const r = rendering('always');
    for (let i = 0; i < HOST_STREAK * 2; i++) r.noted('a:1', false);
    expect(r.route('a:1', 'text/html')).toBe('direct');
  });
});

describe('PageRendering host memory', () => {
  /** `host` sent to direct rendering by HOST_STREAK shells in a row. */
  function direct(r: PageRendering, host: string): void {
    for (let i = 0; i < HOST_STREAK; i++) r.noted(host, true);
    expect(r.route(host, 'text/html')).toBe('direct');
  }

  it('plain pages of hosts it never saw a shell of take no room: a direct host is kept past HOSTS_KEPT of them', () => {
    const r = rendering('auto');
    direct(r, 'spa:1');
    for (let i = 0; i < HOSTS_KEPT + 10; i++) r.noted(`plain${i}:1`, false);
    expect(r.route('spa:1', 'text/html')).toBe('direct');
  });

  it(`remembers ${HOSTS_KEPT} hosts: the next new host with a shell starts the memory again`, () => {
    const r = rendering('auto');
    direct(r, 'spa:1');
    for (let i = 1; i < HOSTS_KEPT; i++) r.noted(`shell${i}:1`, true);
    expect(r.route('spa:1', 'text/html')).toBe('direct'); // HOSTS_KEPT hosts held
    r.noted('one-more:1', true);
    expect(r.route('spa:1', 'text/html')).toBe('check');
    // a host in memory is not a new one
    const again = rendering('auto');
    direct(again, 'spa:1');
    for (let i = 1; i < HOSTS_KEPT; i++) again.noted(`shell${i}:1`, true);
    again.noted('shell1:1', true);
    expect(again.route('spa:1', 'text/html')).toBe('direct');
  });
});

/** A renderer that answers every page with `sameHostRequests` requests to its host, recording the jobs. */
function renderer(sameHostRequests: number) {
  const jobs: RenderJob[] = [];
  const page: RenderedPage = {
    html: '<html></html>',
    timedOut: false,
    requests: sameHostRequests + 1,
    sameHostRequests,
    blocked: 0,
    scriptErrors: [],
    ms: 1,
  };
  let closed = 0;
  const stand: PageRenderer & { jobs: RenderJob[]; closed: () => number } = {
    jobs,
    closed: () => closed,
    render: async (job) => {
      jobs.push(job);
      return page;
    },
    close: async () => {
      closed++;
    },
    pid: 4321,
    rendered: 7,
  };
  return stand;
}

describe('PageRendering.render', () => {
  const cookie: SessionCookie = {
    name: 'sid',
    value: '1',
    domain: 'a',
    path: '/',
    secure: false,
    httpOnly: false,
  };

  function withRenderer(stand: ReturnType<typeof renderer>, delayMs: number) {
    const pauses: Array<[string, number]> = [];
    const signal = new AbortController().signal;
    const r = new PageRendering({
      mode: 'auto',
      renderer: stand,
      fetcher: { cookiesFor: (url) => (url === 'http://a:1/p' ? [cookie] : []) },
      frontier: { pauseHost: (host, ms) => void pauses.push([host, ms]) },
      delayMs,
      signal,
    });
    return { r, pauses, signal };
  }

  it("gives the browser the page as fetched with the worker's cookies, and charges the host delay per same-host request", async () => {
    const stand = renderer(3);
    const { r, pauses, signal } = withRenderer(stand, 250);
    const body = Buffer.from('<html>x</html>');
    const page = await r.render('a:1', 'http://a:1/p', 200, 'text/html', body);
    expect(page.sameHostRequests).toBe(3);
    expect(stand.jobs).toEqual([
      { url: 'http://a:1/p', status: 200, contentType: 'text/html', body, cookies: [cookie], signal },
    ]);
    expect(pauses).toEqual([['a:1', 3 * 250]]);
    expect(r.rendered).toBe(7);
    expect(r.browserPid).toBe(4321);
    expect(r.mode).toBe('auto');
    await r.close();
    expect(stand.closed()).toBe(1);
  });

  it('does not pause the host when the page asked its host for nothing, or without --delay', async () => {
    const none = withRenderer(renderer(0), 250);
    await none.r.render('a:1', 'http://a:1/p', 200, 'text/html', Buffer.alloc(0));
    expect(none.pauses).toEqual([]);
    const noDelay = withRenderer(renderer(4), 0);
    await noDelay.r.render('a:1', 'http://a:1/p', 200, 'text/html', Buffer.alloc(0));
    expect(noDelay.pauses).toEqual([]);
  });
});
