/**
 * Loads fetched HTML pages in headless Chromium and returns the DOM their scripts made
 * (`--render`). One browser per worker process, started on first need and closed after
 * {@link RENDER_IDLE_CLOSE_MS} without a page; at most `concurrency` pages at once, each in a
 * tab reused page after page (the worker's cookies are given to the browser for each page). The document
 * itself is never fetched by the browser: it is answered with the response the fetcher already
 * got (politeness and robots.txt applied to it), so rendering adds no request for the page.
 * Images, fonts and media are not loaded. A page is ready when the network is idle or the DOM is
 * stable, or at the time limit (read as it is then). A browser that crashes, or does not answer
 * past the time limit, is killed by PID and started again for the next page; the pages it held
 * fail with {@link BrowserLost}.
 */
import type { HTTPRequest, Page } from 'puppeteer-core';
import { type ChromiumProcess, launchChromium, lowerPriority } from './chromium.js';
import type { SessionCookie } from './cookie-jar.js';
import { type ReadinessView, readiness } from './readiness.js';

/** A browser without a page for this long is closed, ms (started again on the next need). */
export const RENDER_IDLE_CLOSE_MS = 30_000;

/** How often, at most, the browser's threads are put back below the crawl's CPU priority, ms. */
const LOWER_EVERY_MS = 1000;

/** Time past the page's limit after which a render that has not ended means a hung browser, ms. */
export const HUNG_GRACE_MS = 10_000;

/**
 * Resource types never loaded: the DOM does not need them. Style sheets too (as Crawlee's
 * `blockRequests` does by default): the content and links a crawl reads are the DOM's, and a
 * style sheet costs a request, its parse and a style recalculation per page.
 */
const BLOCKED_TYPES = new Set(['image', 'font', 'media', 'stylesheet']);

/** The icon a browser asks every site for by itself (an image, though its request type is `other`). */
const FAVICON = /^https?:\/\/[^/]+\/favicon\.ico(?:\?|$)/;

/**
 * Installed in every document before its scripts: the time of the last DOM change, for the
 * "DOM stable" signal (the page's own clock, ms).
 */
const MUTATION_CLOCK = `(() => {
  window.__collectorChangedAt = performance.now();
  const watch = () => new MutationObserver(() => { window.__collectorChangedAt = performance.now(); })
    .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.documentElement) watch(); else document.addEventListener('readystatechange', watch, { once: true });
})();`;

/** Settings of a {@link Renderer}. */
export interface RendererOptions {
  /** Pages rendered at once. */
  concurrency: number;
  /** A page's time limit, navigation to ready, ms. */
  timeoutMs: number;
  /** The User-Agent the page's requests carry. */
  userAgent: string;
  /** A render not ended this long past the page's limit means a hung browser, ms. Default {@link HUNG_GRACE_MS}. */
  hungGraceMs?: number;
  /** Close the browser after this long without a page, ms. Default {@link RENDER_IDLE_CLOSE_MS}. */
  idleCloseMs?: number;
  /** Told of each browser start and loss (the worker's log). */
  onBrowser?: (event: 'started' | 'lost' | 'closed', fields: Record<string, unknown>) => void;
}

/** One page to render: the response as fetched. */
export interface RenderJob {
  /** The document's URL (the last hop's). */
  url: string;
  status: number;
  /** Content-Type of the response (its charset is how the browser decodes `body`). */
  contentType: string | null;
  /** The document, Content-Encoding removed. */
  body: Buffer;
  /** The worker's cookies for `url` (`Fetcher.cookiesFor`). */
  cookies: SessionCookie[];
  /** Abandon the render (the crawl is stopping): it rejects at once. */
  signal?: AbortSignal;
}

/** What a render gave. */
export interface RenderedPage {
  /** The DOM serialized (`<!DOCTYPE …>` and `<html>…</html>`). */
  html: string;
  /** The page was not ready within the time limit; `html` is the DOM at that moment. */
  timedOut: boolean;
  /** Requests the page made (the document excluded), and of those to the document's own host:port. */
  requests: number;
  sameHostRequests: number;
  /** Requests not made (images, fonts, media; navigations away from the page). */
  blocked: number;
  /** Uncaught errors of the page's scripts (first lines). */
  scriptErrors: string[];
  /** Navigation to ready, ms. */
  ms: number;
}

/** The browser crashed or hung while it held the page: nothing is wrong with the page itself. */
export class BrowserLost extends Error {}

/** What renders pages for a worker: a {@link Renderer}, or one in a thread of its own (`render-thread.ts`). */
export interface PageRenderer {
  /**
   * Render one page.
   * @throws BrowserLost when the browser was lost meanwhile; the launch error; Error `render aborted`.
   */
  render(job: RenderJob): Promise<RenderedPage>;
  /** Close the browser; later renders fail. */
  close(): Promise<void>;
  /** The running browser's PID, or null when none runs. */
  readonly pid: number | null;
  /** Pages rendered (ready or timed out). */
  readonly rendered: number;
}

/** Renders pages in one browser (see the module comment). */
export class Renderer implements PageRenderer {
  private proc: ChromiumProcess | null = null;
  private launching: Promise<ChromiumProcess> | null = null;
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /** Free tabs, per browser (a lost browser's go with it). */
  private readonly tabs = new WeakMap<ChromiumProcess, Tab[]>();
  /** Pages rendered (ready or timed out). */
  rendered = 0;
  /** Browsers lost (crashed, or killed as hung). */
  lost = 0;
  /** Epoch ms of the last pass of {@link keepLow}. */
  private loweredAt = 0;

  constructor(private readonly opts: RendererOptions) {}

  /** The running browser's PID, or null when none runs. */
  get pid(): number | null {
    return this.proc?.pid ?? null;
  }

  /**
   * Render one page, waiting for a free page slot first; the browser is started when none runs.
   * @throws BrowserLost when the browser crashed or hung meanwhile (it is killed; the next page
   *   starts a new one); the launch error (no Chromium: a one-line message naming the package);
   *   Error `render aborted` when `job.signal` fired.
   */
  async render(job: RenderJob): Promise<RenderedPage> {
    await this.acquire();
    try {
      if (job.signal?.aborted) throw new Error('render aborted');
      const proc = await this.browser();
      return await this.watched(proc, job);
    } finally {
      this.release();
    }
  }

  /** Close the browser (and end it by PID if it does not close in time); later renders fail. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idleTimer !== null) clearTimeout(this.idleTimer);
    const proc = this.proc ?? (await this.launching?.catch(() => null)) ?? null;
    this.proc = null;
    if (proc !== null) await proc.close();
  }

  /** The render of `job` in `proc`, bounded: past the time limit and the hung grace, the browser is killed. */
  private watched(proc: ChromiumProcess, job: RenderJob): Promise<RenderedPage> {
    return new Promise<RenderedPage>((resolve, reject) => {
      let settled = false;
      const finish = (f: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(hung);
        job.signal?.removeEventListener('abort', onAbort);
        f();
      };
      const limit = this.opts.timeoutMs + (this.opts.hungGraceMs ?? HUNG_GRACE_MS);
      const hung = setTimeout(() => {
        this.lose(proc, 'hung');
        finish(() => reject(new BrowserLost(`browser did not answer within ${limit} ms`)));
      }, limit);
      const onAbort = () => finish(() => reject(new Error('render aborted')));
      job.signal?.addEventListener('abort', onAbort, { once: true });
      this.renderIn(proc, job).then(
        (r) => finish(() => resolve(r)),
        (e) => {
          // A DevTools call that timed out: the browser does not answer (hung), as for the timer.
          const hungCall = (e as Error).name === 'ProtocolError' && /timed out/i.test((e as Error).message);
          const gone = hungCall || !proc.browser.connected || this.proc !== proc;
          if (gone) this.lose(proc, hungCall ? 'hung' : 'crashed');
          finish(() => reject(gone ? new BrowserLost(`browser lost: ${firstLine(e)}`) : e));
        },
      );
    });
  }

  private async renderIn(proc: ChromiumProcess, job: RenderJob): Promise<RenderedPage> {
    const tabs = this.tabsOf(proc);
    const tab = tabs.pop() ?? (await this.newTab(proc));
    // The page's time limit starts with its navigation (a new tab's start is ours, not the page's).
    const started = Date.now();
    const deadline = started + this.opts.timeoutMs;
    const render: TabRender = {
      job,
      host: new URL(job.url).host,
      target: withoutHash(job.url),
      served: false,
      net: { requests: 0, sameHost: 0, blocked: 0, inFlight: 0, lastAt: Date.now(), events: 0 },
      going: new WeakSet(),
      scriptErrors: [],
    };
    tab.current = render;
    let reusable = false;
    try {
      if (job.cookies.length > 0) await proc.browser.defaultBrowserContext().setCookie(...job.cookies);
      let timedOut = false;
      try {
        await tab.page.goto(job.url, { waitUntil: 'load', timeout: this.opts.timeoutMs });
        timedOut = !(await ready(tab.page, render.net, deadline));
      } catch (e) {
        if ((e as Error).name !== 'TimeoutError') throw e;
        timedOut = true;
      }
      const html = await tab.page.content();
      this.rendered++;
      // A page that did not settle may still be busy: its tab is closed rather than reused.
      reusable = !timedOut;
      const { requests, sameHost, blocked } = render.net;
      return {
        html,
        timedOut,
        requests,
        sameHostRequests: sameHost,
        blocked,
        scriptErrors: render.scriptErrors,
        ms: Date.now() - started,
      };
    } finally {
      tab.current = null;
      if (reusable && this.proc === proc) tabs.push(tab);
      else void tab.page.close().catch(() => {});
      this.keepLow(proc);
    }
  }

  /**
   * Keep the browser below the crawl's CPU priority ({@link lowerPriority}): its threads start
   * there, but Chromium sets some threads' priority itself (as root it may raise them: its I/O and
   * compositor threads to nice -8, pool threads to 0), and its thread pools grow. At most once per
   * {@link LOWER_EVERY_MS} unless `now`.
   */
  private keepLow(proc: ChromiumProcess, now = false): void {
    const t = Date.now();
    if (!now && t - this.loweredAt < LOWER_EVERY_MS) return;
    this.loweredAt = t;
    lowerPriority(proc.pid);
  }

  /** The free tabs of `proc`'s browser. */
  private tabsOf(proc: ChromiumProcess): Tab[] {
    let tabs = this.tabs.get(proc);
    if (tabs === undefined) {
      tabs = [];
      this.tabs.set(proc, tabs);
    }
    return tabs;
  }

  /**
   * A tab, reused page after page (a new one costs a renderer process start, 250–450 ms): its
   * requests are intercepted for the page it renders (the document answered with the fetched
   * response; images, fonts, media and navigations away refused; the rest go out, counted), and
   * refused between pages.
   */
  private async newTab(proc: ChromiumProcess): Promise<Tab> {
    const page = await proc.browser.defaultBrowserContext().newPage();
    const tab: Tab = { page, current: null };
    this.keepLow(proc, true); // a renderer process started for the tab
    await page.setRequestInterception(true);
    await page.setUserAgent(this.opts.userAgent);
    await page.evaluateOnNewDocument(MUTATION_CLOCK);
    page.on('pageerror', (e) => {
      const errors = tab.current?.scriptErrors;
      if (errors !== undefined && errors.length < 10) errors.push(firstLine(e));
    });
    const ended = (r: HTTPRequest) => {
      const c = tab.current;
      if (c === null || !c.going.delete(r)) return;
      c.net.inFlight--;
      c.net.events++;
      c.net.lastAt = Date.now();
    };
    page.on('requestfinished', ended);
    page.on('requestfailed', ended);
    page.on('request', (r) => {
      if (r.isInterceptResolutionHandled()) return;
      const c = tab.current;
      const mainNavigation = r.isNavigationRequest() && r.frame() === page.mainFrame();
      if (c !== null && mainNavigation && !c.served && withoutHash(r.url()) === c.target) {
        c.served = true;
        const headers: Record<string, string> = {};
        if (c.job.contentType !== null) headers['content-type'] = c.job.contentType;
        void r.respond({ status: c.job.status, headers, body: c.job.body }).catch(() => {});
        return;
      }
      if (c === null || mainNavigation || BLOCKED_TYPES.has(r.resourceType()) || FAVICON.test(r.url())) {
        if (c !== null) c.net.blocked++;
        void r.abort('blockedbyclient').catch(() => {});
        return;
      }
      const net = c.net;
      net.requests++;
      if (URL.parse(r.url())?.host === c.host) net.sameHost++;
      c.going.add(r);
      net.inFlight++;
      net.events++;
      net.lastAt = Date.now();
      void r.continue().catch(() => ended(r));
    });
    return tab;
  }

  /** The running browser, started when none runs (one launch at a time). */
  private async browser(): Promise<ChromiumProcess> {
    if (this.closed) throw new Error('renderer closed');
    if (this.proc !== null) return this.proc;
    if (this.launching === null) {
      // Each DevTools call is bounded too, past the hung-browser timer (which normally fires first):
      // a hung browser's calls fail instead of waiting forever.
      this.launching = launchChromium(
        this.opts.timeoutMs + 2 * (this.opts.hungGraceMs ?? HUNG_GRACE_MS),
      ).then(
        (proc) => {
          this.launching = null;
          if (this.closed) {
            void proc.close();
            throw new Error('renderer closed');
          }
          this.proc = proc;
          proc.browser.on('disconnected', () => this.lose(proc, 'crashed'));
          this.opts.onBrowser?.('started', { pid: proc.pid });
          return proc;
        },
        (e) => {
          this.launching = null;
          throw e;
        },
      );
    }
    return this.launching;
  }

  /** The browser crashed or hung: killed by PID (once), and forgotten so that the next page starts another. */
  private lose(proc: ChromiumProcess, why: 'crashed' | 'hung'): void {
    if (this.proc !== proc) return;
    this.proc = null;
    if (!this.closed) {
      this.lost++;
      this.opts.onBrowser?.('lost', { pid: proc.pid, why });
    }
    proc.kill();
  }

  private async acquire(): Promise<void> {
    if (this.idleTimer !== null) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    if (this.active < this.opts.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) {
      next(); // the slot passes on
      return;
    }
    this.active--;
    if (this.active === 0 && !this.closed) {
      this.idleTimer = setTimeout(() => this.closeIdle(), this.opts.idleCloseMs ?? RENDER_IDLE_CLOSE_MS);
      this.idleTimer.unref();
    }
  }

  private closeIdle(): void {
    this.idleTimer = null;
    const proc = this.proc;
    if (proc === null || this.active > 0) return;
    this.proc = null;
    this.opts.onBrowser?.('closed', { pid: proc.pid });
    void proc.close();
  }
}

/** A browser tab and the page it renders now (null between pages). */
interface Tab {
  page: Page;
  current: TabRender | null;
}

/** One page being rendered in a tab. */
interface TabRender {
  job: RenderJob;
  /** host:port of the document. */
  host: string;
  /** The document's URL without its fragment. */
  target: string;
  /** The document was answered (later navigations of the tab are refused). */
  served: boolean;
  net: RequestWatch;
  /** The requests let through and not yet ended. */
  going: WeakSet<HTTPRequest>;
  scriptErrors: string[];
}

/** A page's requests, as {@link Renderer} counts them. */
interface RequestWatch {
  requests: number;
  sameHost: number;
  blocked: number;
  inFlight: number;
  /** Epoch ms of the last request started or ended. */
  lastAt: number;
  /** Request starts and ends so far, one each (a change means a `dom` read before it is stale). */
  events: number;
}

/**
 * Wait until the page is ready by {@link readiness}. @returns false when `deadline` (epoch ms) came first.
 */
async function ready(page: Page, net: RequestWatch, deadline: number): Promise<boolean> {
  // The page's clock at `load`: only a DOM change after it can make the page settled or its DOM stable.
  const loadedAt = (await page.evaluate('performance.now()')) as number;
  let dom: ReadinessView['dom'] = null;
  let domFor = -1; // `net.events` when `dom` was read: a request started or ended since makes it stale
  for (;;) {
    const now = Date.now();
    if (now >= deadline) return false;
    const seen = net.events;
    const step = readiness({
      now,
      inFlight: net.inFlight,
      lastRequestAt: net.lastAt,
      dom: domFor === seen ? dom : null,
    });
    if ('ready' in step) return true;
    if ('wait' in step) {
      dom = null;
      await sleep(Math.min(step.wait, deadline - now));
      continue;
    }
    // A string: evaluated in the page, where `window` is (this module is compiled for Node).
    const [pageNow, changedAt] = (await page.evaluate(
      '[performance.now(), window.__collectorChangedAt ?? 0]',
    )) as [number, number];
    dom = { changedSinceLoad: changedAt > loadedAt, stillMs: pageNow - changedAt };
    domFor = seen;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function withoutHash(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0] ?? '';
}
