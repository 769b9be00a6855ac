/**
 * When a rendered page is ready to be read: the rule `--render` waits by (network idle, settled,
 * or DOM stable; see {@link readiness}), as a pure function of what the page shows, so that it is
 * tested with a fake clock. The renderer (`renderer.ts`) polls the page and asks it.
 */

/** The network is idle once no request of the page has been in flight for this long, ms. */
export const NETWORK_IDLE_MS = 200;

/**
 * A page has settled sooner, once neither its network nor its DOM has moved for this long, ms,
 * after a DOM change made since `load`: the content the app fetched is written and nothing else
 * is asked for. (An app's next request follows its last answer or its first render within a few
 * ms; one started later than this by a timer is not waited for, as with {@link NETWORK_IDLE_MS}.)
 */
export const SETTLED_MS = 100;

/**
 * The DOM is stable once no node has changed for this long, ms, after a change made since `load`
 * (while requests are still in flight: a page whose content came and whose long poll goes on). A
 * shell whose content request is slow has not changed since `load`: it waits for the network.
 */
export const DOM_STABLE_MS = 1000;

/** How often readiness is checked, ms. */
export const READY_POLL_MS = 50;

/** What a page's readiness check sees: its requests, and its DOM's last change (page clock). */
export interface ReadinessView {
  /** Epoch ms now. */
  now: number;
  /** Requests of the page in flight. */
  inFlight: number;
  /** Epoch ms of the last request started or ended. */
  lastRequestAt: number;
  /**
   * The DOM: whether it changed since `load`, and for how long it has been still, ms; null when not
   * read (reading it costs a round trip to the browser: {@link readiness} asks for it).
   */
  dom: { changedSinceLoad: boolean; stillMs: number } | null;
}

/**
 * The readiness rule of a rendered page: `ready` when nothing is in flight and (no request for
 * {@link NETWORK_IDLE_MS}, or no request and no DOM change for {@link SETTLED_MS} after a DOM change
 * since `load`), or while requests go on, when the DOM has been still for {@link DOM_STABLE_MS}
 * after a change since `load`; else `wait` that long, ms, before looking again (only time can make
 * it ready), or `readDom` when the answer depends on the DOM and `view.dom` is null.
 */
export function readiness(view: ReadinessView): { ready: true } | { wait: number } | { readDom: true } {
  const quiet = view.now - view.lastRequestAt;
  if (view.inFlight === 0) {
    if (quiet >= NETWORK_IDLE_MS) return { ready: true };
    if (quiet < SETTLED_MS) return { wait: SETTLED_MS - quiet };
  }
  if (view.dom === null) return { readDom: true };
  const { changedSinceLoad, stillMs } = view.dom;
  const enough = view.inFlight === 0 ? SETTLED_MS : DOM_STABLE_MS;
  if (changedSinceLoad && stillMs >= enough) return { ready: true };
  const untilStill = changedSinceLoad ? enough - stillMs : READY_POLL_MS;
  const untilIdle = view.inFlight === 0 ? NETWORK_IDLE_MS - quiet : READY_POLL_MS;
  return { wait: Math.max(1, Math.min(READY_POLL_MS, untilStill, untilIdle)) };
}
