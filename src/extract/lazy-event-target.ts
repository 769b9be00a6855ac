/**
 * An `EventTarget` for linkedom's nodes that costs nothing until a listener is added.
 *
 * linkedom 0.18's `EventTarget` constructor puts every node it creates into a module-level
 * `WeakMap` with a fresh `Map` of listeners. Content extraction builds tens of thousands of nodes
 * a second and never listens to an event, and those entries were its largest single cost: 12% of
 * the CPU of a pass over the extraction benchmark, and a third of its garbage collection
 * (ephemeron tables are swept on every collection). This class keeps the same behaviour
 * (listeners per type, `once`, capture of the path before dispatch, bubbling through
 * `_getParent()`, `stopImmediatePropagation`) but creates a node's listener map only when a
 * listener is added.
 *
 * It replaces linkedom's `cjs/interface/event-target.js` module in Node's module cache
 * ({@link installLazyEventTarget}, called before linkedom is first required; linkedom is loaded
 * from `node_modules` at run time, in the bundle too), for the linkedom release line it was
 * written against ({@link LINKEDOM_LINE}); any other keeps its own.
 * Follows the WHATWG DOM standard's EventTarget as far as linkedom does ("dispatching events",
 * simplified: no capture phase listeners, no shadow trees).
 */
import { existsSync, readFileSync } from 'node:fs';
import { Module } from 'node:module';
import path from 'node:path';

/** The linkedom versions whose `event-target.js` this replaces (their exports: `{ EventTarget }`). */
export const LINKEDOM_LINE = /^0\.18\./;

/** What linkedom's events carry (its `Event` class); only the fields dispatch reads and writes. */
interface LinkedomEvent {
  type: string;
  bubbles: boolean;
  cancelBubble: boolean;
  defaultPrevented: boolean;
  eventPhase: number;
  _stopImmediatePropagationFlag: boolean;
  _path: { currentTarget: EventTarget; target: EventTarget }[];
  currentTarget?: EventTarget;
  target?: EventTarget;
}

type Listener = ((event: LinkedomEvent) => void) | { handleEvent(event: LinkedomEvent): void };
type ListenerOptions = boolean | { once?: boolean } | undefined;

const NONE = 0;
const CAPTURING_PHASE = 1;
const AT_TARGET = 2;
const BUBBLING_PHASE = 3;

/** Listeners of the nodes that have any: type → listener → options. */
const listenersOf = new WeakMap<EventTarget, Map<string, Map<Listener, ListenerOptions>>>();

/** Calls the listeners of `type` on `currentTarget`; true when propagation was stopped. */
function invoke(event: LinkedomEvent, currentTarget: EventTarget, target: EventTarget): boolean {
  const listeners = listenersOf.get(currentTarget)?.get(event.type);
  if (listeners === undefined) return false;
  event.eventPhase = currentTarget === target ? AT_TARGET : BUBBLING_PHASE;
  event.currentTarget = currentTarget;
  event.target = target;
  for (const [listener, options] of listeners) {
    if (typeof options === 'object' && options?.once) listeners.delete(listener);
    if (typeof listener === 'function') listener.call(target, event);
    else listener.handleEvent(event);
    if (event._stopImmediatePropagationFlag) break;
  }
  delete event.currentTarget;
  delete event.target;
  return event.cancelBubble;
}

/** linkedom's `EventTarget`, with the listener map made on the first `addEventListener`. */
export class EventTarget {
  /** The node events bubble to (linkedom's nodes override it). */
  _getParent(): EventTarget | null {
    return null;
  }

  addEventListener(type: string, listener: Listener, options?: ListenerOptions): void {
    let byType = listenersOf.get(this);
    if (byType === undefined) {
      byType = new Map();
      listenersOf.set(this, byType);
    }
    let listeners = byType.get(type);
    if (listeners === undefined) {
      listeners = new Map();
      byType.set(type, listeners);
    }
    listeners.set(listener, options);
  }

  removeEventListener(type: string, listener: Listener): void {
    const byType = listenersOf.get(this);
    const listeners = byType?.get(type);
    if (listeners?.delete(listener) && listeners.size === 0) byType!.delete(type);
  }

  /** Dispatches along the path fixed before any listener runs; false when a listener prevented the default. */
  dispatchEvent(event: LinkedomEvent): boolean {
    event.eventPhase = CAPTURING_PHASE;
    for (let node: EventTarget | null = this; node != null; node = event.bubbles ? node._getParent?.() : null)
      event._path.push({ currentTarget: node, target: this });
    for (const { currentTarget, target } of event._path) if (invoke(event, currentTarget, target)) break;
    event._path = [];
    event.eventPhase = NONE;
    return !event.defaultPrevented;
  }
}

/** The path of linkedom's `event-target.js` when it is of {@link LINKEDOM_LINE}; null otherwise. */
export function linkedomEventTargetFile(resolve: (id: string) => string): string | null {
  let manifest: string;
  try {
    manifest = resolve('linkedom/package.json');
  } catch {
    return null;
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string };
  const file = path.join(path.dirname(manifest), 'cjs/interface/event-target.js');
  return typeof version === 'string' && LINKEDOM_LINE.test(version) && existsSync(file) ? file : null;
}

/**
 * Makes `require('linkedom')` build its nodes on {@link EventTarget}: puts a module exporting it in
 * `require.cache` under linkedom's own `event-target.js`, which linkedom's modules then get. Call
 * before linkedom is first required through `req` (later, it changes nothing: linkedom's classes
 * are built). Does nothing for a linkedom outside {@link LINKEDOM_LINE}.
 * @returns whether the replacement is in place.
 */
export function installLazyEventTarget(req: NodeJS.Require): boolean {
  const file = linkedomEventTargetFile((id) => req.resolve(id));
  if (file === null) return false;
  if (req.cache[file] === undefined) {
    // a module as Node's loader leaves it once loaded: require() returns its `exports`
    const module = new Module(file);
    module.filename = file;
    module.loaded = true;
    module.exports = { EventTarget };
    req.cache[file] = module;
  }
  return (req.cache[file]?.exports as { EventTarget?: unknown } | undefined)?.EventTarget === EventTarget;
}
