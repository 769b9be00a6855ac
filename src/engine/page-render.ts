/**
 * `--render auto|always` in one worker: which HTML pages go to the browser, and what a render
 * costs the page's host. `always`: every HTML page. `auto`: HTTP first, a page whose HTML is an
 * app shell (`extract/app-shell.ts`) is rendered; a host whose pages were shells
 * {@link HOST_STREAK} times in a row is rendered directly (its pages skip the HTTP read), until
 * {@link HOST_STREAK} of its pages in a row are not shells. The page's requests to its own host
 * count against the host's delay: after the render, the host waits `delay` per such request, as if
 * the crawler had made them (Chromium's own limit of 6 connections per host bounds them at once).
 */
import type { FrontierQueue } from '../frontier/frontier-queue.js';
import type { Fetcher } from '../http/fetcher.js';
import type { PageRenderer, RenderedPage } from '../http/renderer.js';

/** Pages in a row that move a host to direct rendering, or back to HTTP first. */
export const HOST_STREAK = 3;

/** Hosts whose streak is remembered; past it the memory starts again (a bound, not a cache policy). */
export const HOSTS_KEPT = 10_000;

/** How an HTML page of a host is read: HTTP first with the app-shell test, or rendered at once. */
export type RenderRoute = 'check' | 'direct';

/** What the render step works with. */
export interface PageRenderingParts {
  mode: 'auto' | 'always';
  renderer: PageRenderer;
  /** The worker's session: its cookies go with the page. */
  fetcher: Pick<Fetcher, 'cookiesFor'>;
  /** Where a host's wait for the page's own requests is applied. */
  frontier: Pick<FrontierQueue, 'pauseHost'>;
  /** `--delay`, ms: the wait per request the page made to its own host. */
  delayMs: number;
  /** Fires when the crawl abandons in-flight work. */
  signal: AbortSignal;
}

interface HostStreak {
  direct: boolean;
  /** Pages in a row that argue for the other route. */
  run: number;
}

/** The render step of one worker (see the module comment). */
export class PageRendering {
  private readonly hosts = new Map<string, HostStreak>();

  constructor(private readonly parts: PageRenderingParts) {}

  /** `auto` or `always`. */
  get mode(): 'auto' | 'always' {
    return this.parts.mode;
  }

  /** Pages rendered by this worker (this session). */
  get rendered(): number {
    return this.parts.renderer.rendered;
  }

  /** The browser's PID while one runs, else null (the supervisor counts its memory). */
  get browserPid(): number | null {
    return this.parts.renderer.pid;
  }

  /**
   * How a 2xx response of `host` with this Content-Type is read: null when it is not HTML (by its
   * type: a page without one is left to the HTTP read), else its route.
   */
  route(host: string, contentType: string | null): RenderRoute | null {
    if (contentType !== null && !/html/i.test(contentType)) return null;
    if (this.parts.mode === 'always') return 'direct';
    if (contentType === null) return 'check';
    return this.hosts.get(host)?.direct === true ? 'direct' : 'check';
  }

  /**
   * An HTML page of `host` was (`shell`) or was not an app shell: in `auto`, {@link HOST_STREAK}
   * in a row against the host's route switch it.
   */
  noted(host: string, shell: boolean): void {
    if (this.parts.mode !== 'auto') return;
    let s = this.hosts.get(host);
    if (s === undefined) {
      if (!shell) return;
      if (this.hosts.size >= HOSTS_KEPT) this.hosts.clear();
      s = { direct: false, run: 0 };
      this.hosts.set(host, s);
    }
    if (shell !== s.direct) {
      s.run++;
      if (s.run >= HOST_STREAK) {
        s.direct = !s.direct;
        s.run = 0;
      }
    } else s.run = 0;
  }

  /**
   * Render the page at `url` of `host` (its response as fetched, Content-Encoding removed) with
   * the worker's cookies; then its host waits `delay` per request the page made to it.
   * @throws as `PageRenderer.render` (BrowserLost, a launch error, `render aborted`).
   */
  async render(
    host: string,
    url: string,
    status: number,
    contentType: string | null,
    body: Buffer,
  ): Promise<RenderedPage> {
    const { renderer, fetcher, frontier, delayMs, signal } = this.parts;
    const page = await renderer.render({
      url,
      status,
      contentType,
      body,
      cookies: fetcher.cookiesFor(url),
      signal,
    });
    if (page.sameHostRequests > 0 && delayMs > 0) frontier.pauseHost(host, page.sameHostRequests * delayMs);
    return page;
  }

  /** Close the browser. */
  close(): Promise<void> {
    return this.parts.renderer.close();
  }
}
