/** Warnings about hosts that do not answer: when a line is told, and how often. */
import { describe, expect, it } from 'vitest';
import { RetryWarnings, WARNING_LINE_LIMIT } from '../../src/engine/retry-warnings.js';

function warnings(limit = WARNING_LINE_LIMIT) {
  const told: string[] = [];
  const logged: string[] = [];
  const w = new RetryWarnings(
    (line) => told.push(line),
    (line) => logged.push(line),
    3,
    limit,
  );
  return { w, told, logged };
}

const REFUSED = 'connection refused (connect ECONNREFUSED 127.0.0.1:9); fetching robots.txt';

describe('RetryWarnings', () => {
  it('tells a host that never answered at its first retry, with the cause in words, the wait and the count', () => {
    const { w, told } = warnings();
    w.retrying('127.0.0.1:9', 'http://127.0.0.1:9/', 'network', REFUSED, 1, 1234);
    expect(told).toEqual(['127.0.0.1:9: connection refused, retrying in 1.2 s (1/3)']);
    w.retrying('127.0.0.1:9', 'http://127.0.0.1:9/', 'network', REFUSED, 2, 25_400);
    expect(told[1]).toBe('127.0.0.1:9: connection refused, retrying in 25 s (2/3)');
  });

  it('tells each retry number of a host once, however many of its URLs fail', () => {
    const { w, told } = warnings();
    for (let i = 0; i < 1000; i++)
      w.retrying('dead.test', `http://dead.test/${i}`, 'dns', 'name not resolved', 1, 1000);
    for (let i = 0; i < 1000; i++)
      w.retrying('dead.test', `http://dead.test/${i}`, 'dns', 'name not resolved', 2, 2000);
    expect(told).toHaveLength(2);
  });

  it('says nothing of failures with an answer, nor of one failure on a host that answers', () => {
    const { w, told } = warnings();
    w.retrying('a.test', 'http://a.test/', 'http-status', 'HTTP 503', 1, 1000);
    w.answered('b.test');
    w.retrying('b.test', 'http://b.test/x', 'network', 'connection reset (x)', 1, 1000);
    expect(told).toEqual([]);
    // a second failure in a row: the host stopped answering
    w.retrying('b.test', 'http://b.test/y', 'timeout', 'no complete response within 15000 ms', 1, 1000);
    expect(told).toEqual(['b.test: no complete response within 15000 ms, retrying in 1.0 s (1/3)']);
    // it answers again: a later failure starts over
    w.answered('b.test');
    w.retrying('b.test', 'http://b.test/z', 'network', 'connection reset (x)', 1, 1000);
    w.retrying('b.test', 'http://b.test/z', 'network', 'connection reset (x)', 1, 1000);
    expect(told).toHaveLength(2);
  });

  it('past its budget, lines go to the log only, after one line saying so', () => {
    const { w, told, logged } = warnings(2);
    for (let i = 0; i < 5; i++) w.retrying(`h${i}.test`, `http://h${i}.test/`, 'network', REFUSED, 1, 1000);
    expect(told).toHaveLength(3);
    expect(told[2]).toMatch(/go to the log only/);
    expect(logged).toHaveLength(3);
  });
});
