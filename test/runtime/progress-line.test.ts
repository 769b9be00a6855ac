import { describe, expect, it, vi } from 'vitest';
import { ProgressLine } from '../../src/runtime/progress-line.js';

describe('progress line', () => {
  it('redraws pages, rate, queued, errors and bytes in place every second, and clears at stop', () => {
    vi.useFakeTimers();
    try {
      let written = '';
      const out = { write: (s: string) => (written += s) } as unknown as NodeJS.WriteStream;
      const c = { items: 0, errors: 0, bytes: 0, queued: 10, stopping: false };
      const line = new ProgressLine(() => c, out);
      line.start();
      c.items = 120;
      c.errors = 2;
      c.bytes = 3 * 1048576;
      c.queued = 40;
      vi.advanceTimersByTime(1000);
      expect(written).toMatch(/^\r\x1b\[Kpages 120 {2}\d+\/s {2}queued 40 {2}errors 2 {2}3\.0 MB$/);
      c.stopping = true;
      vi.advanceTimersByTime(1000);
      expect(written).toMatch(/stopping…$/);
      line.stop();
      expect(written.endsWith('\r\x1b[K')).toBe(true);
      const len = written.length;
      vi.advanceTimersByTime(3000);
      expect(written.length).toBe(len);
    } finally {
      vi.useRealTimers();
    }
  });
});
