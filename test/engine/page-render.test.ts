import { describe, expect, it } from 'vitest';
import { HOST_STREAK, PageRendering } from '../../src/engine/page-render.js';
import { Renderer } from '../../src/http/renderer.js';

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
