/**
 * Test-only sources. `MemoryHogSource` behaves like `crawl` but keeps `COLLECTOR_HOG_MB` (default 4) MiB
 * alive per page, to exercise the supervisor's memory guard. Registered only when the
 * environment has `COLLECTOR_TEST_SOURCES=1`.
 */
import { CrawlSource } from './crawl.js';
import type { Page, SourceResult } from './source.js';

const kept: Buffer[] = [];

/** Crawl source that leaks memory on purpose (tests only). */
export class MemoryHogSource extends CrawlSource {
  override readonly name = 'crawl';
  /** Its memory must grow in the worker process's main heap, where the guard watches it. */
  override readonly offThread = false;

  override handle(page: Page): SourceResult {
    const mb = Number(process.env.COLLECTOR_HOG_MB ?? 4);
    kept.push(Buffer.alloc(mb * 1024 * 1024, 1));
    return super.handle(page);
  }
}

/** Crawl source whose page thread exits on any URL ending in `/crash.html` (tests only). */
export class ThreadCrashSource extends CrawlSource {
  override readonly offThread = true;

  constructor(override readonly name = 'thread-crash') {
    super();
  }

  override handle(page: Page): SourceResult {
    // In a page thread this ends the thread, not the process.
    if (page.url.endsWith('/crash.html')) process.exit(1);
    return super.handle(page);
  }
}
