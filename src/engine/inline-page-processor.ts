/**
 * The {@link PageProcessor} on the crawler's own thread, for plans with more processes than
 * cores (a page thread would cost memory and save no time) and for sources that are not
 * thread-safe: `work` runs synchronously (unless the source's `handle` is async), stores use
 * async fs.
 */
import { FileSink, type VersionOptions } from '../sinks/file-sink.js';
import type { RunningSource } from '../sources/source-runner.js';
import type { PageProcessor } from './page-processor.js';
import { markdownId, type PageJob, type WorkedPage, workPage } from './page-work.js';

/** Same-thread {@link PageProcessor}. */
export class InlinePageProcessor implements PageProcessor {
  private readonly kept = new Map<number, Buffer>();
  private readonly sink: FileSink | null;

  constructor(
    private readonly source: RunningSource,
    opts: { outDir: string; storeBodies: boolean; versions?: VersionOptions },
  ) {
    this.sink = opts.storeBodies ? new FileSink({ outDir: opts.outDir, versions: opts.versions }) : null;
  }

  async work(job: PageJob): Promise<WorkedPage> {
    const { worked, body, markdown } = await workPage(job, this.source);
    if (body !== null) this.kept.set(job.id, body);
    if (markdown !== undefined) this.kept.set(markdownId(job.id), markdown);
    return worked;
  }

  store(id: number, url: string, extension?: string): Promise<string> {
    const body = this.kept.get(id);
    this.kept.delete(id);
    if (body === undefined) return Promise.reject(new Error(`no body kept for ${url}`));
    if (this.sink === null) return Promise.reject(new Error('bodies are not stored (--no-store)'));
    return this.sink.write(url, body, extension);
  }

  drop(id: number): void {
    this.kept.delete(id);
    this.kept.delete(markdownId(id));
  }

  async close(): Promise<void> {
    this.kept.clear();
    await this.sink?.close();
  }
}
