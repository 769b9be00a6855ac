import { describe, expect, it } from 'vitest';
import { parseDocument } from '../../src/extract/content.js';
import { EventTarget } from '../../src/extract/lazy-event-target.js';

type Ev = {
  type: string;
  target?: unknown;
  currentTarget?: unknown;
  eventPhase: number;
  [k: string]: unknown;
};
type Listening = {
  addEventListener(t: string, l: (e: Ev) => void, o?: unknown): void;
  removeEventListener(t: string, l: (e: Ev) => void): void;
  dispatchEvent(e: unknown): boolean;
  ownerDocument: { defaultView: { Event: new (t: string, i?: { bubbles?: boolean }) => Ev } };
};

/** The `<p>` and `<div>` of a parsed document, as event targets. */
function nodes() {
  const doc = parseDocument('<html><body><div id="d"><p id="p">x</p></div></body></html>');
  const div = doc.querySelector('#d') as unknown as Listening;
  const p = doc.querySelector('#p') as unknown as Listening;
  const Event = (
    doc as unknown as { defaultView: { Event: Listening['ownerDocument']['defaultView']['Event'] } }
  ).defaultView.Event;
  return { div, p, Event };
}

describe('linkedom with the lazy EventTarget', () => {
  it('builds the nodes content extraction parses on it (the replacement is in place)', () => {
    const { div, p } = nodes();
    expect(div).toBeInstanceOf(EventTarget);
    expect(p).toBeInstanceOf(EventTarget);
  });

  it('dispatches as linkedom does: at the target, then bubbling to the parent, `once` removed', () => {
    const { div, p, Event } = nodes();
    const seen: string[] = [];
    p.addEventListener('ping', (e) => seen.push(`p:${e.eventPhase}`));
    p.addEventListener('ping', () => seen.push('p-once'), { once: true });
    div.addEventListener('ping', (e) => seen.push(`div:${e.eventPhase}:${e.target === p}`));
    expect(p.dispatchEvent(new Event('ping', { bubbles: true }))).toBe(true);
    p.dispatchEvent(new Event('ping'));
    expect(seen).toEqual(['p:2', 'p-once', 'div:3:true', 'p:2']);
  });

  it('stops at stopImmediatePropagation and forgets a removed listener', () => {
    const { div, p, Event } = nodes();
    const seen: string[] = [];
    const stop = (e: Ev) => {
      seen.push('stop');
      (e as unknown as { stopImmediatePropagation(): void }).stopImmediatePropagation();
    };
    const later = () => seen.push('later');
    p.addEventListener('ping', stop);
    p.addEventListener('ping', later);
    div.addEventListener('ping', () => seen.push('div'));
    p.dispatchEvent(new Event('ping', { bubbles: true }));
    p.removeEventListener('ping', stop);
    p.dispatchEvent(new Event('ping'));
    expect(seen).toEqual(['stop', 'later']);
  });
});
