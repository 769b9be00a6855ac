import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceLogLine } from '../../src/engine/page-work.js';
import { type PageJob, workPage } from '../../src/engine/page-work.js';
import { ThreadedPageProcessor } from '../../src/engine/threaded-page-processor.js';
import type { SourceDefinition } from '../../src/sources/source.js';
import { runSource, sourceLog } from '../../src/sources/source-runner.js';
import { tempDir } from '../fixtures/cli.js';

const WORKER = { id: 'w-0', index: 0, count: 1 };

function job(id: number, body: string, over: Partial<PageJob> = {}): PageJob {
  return {
    id,
    url: 'http://127.0.0.1/api/1.json',
    finalUrl: 'http://127.0.0.1/api/1.json',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    contentEncoding: null,
    headers: {},
    depth: 1,
    maxBytes: 1 << 20,
    extract: true,
    body: Buffer.from(body),
    ...over,
  };
}

function running(def: SourceDefinition, logs: SourceLogLine[] = []) {
  return runSource(
    { def, ref: null, builtin: false },
    { x: 1 },
    [],
    WORKER,
    sourceLog((level, message, fields) => logs.push({ level, message, fields })),
  );
}

describe('workPage: the source at work on one response', () => {
  it('hands the page (label, userData, text, json) and the context; a sync result stays sync', () => {
    const seen: unknown[] = [];
    const src = running({
      name: 's',
      handle(page, ctx) {
        seen.push([page.label, page.userData, page.text(), page.json(), ctx.options, ctx.worker]);
        return { title: 't', follow: ['2.json'] };
      },
    });
    const r = workPage(job(1, '{"a":1}', { label: 'item', userData: { n: 2 } }), src);
    expect(r).not.toBeInstanceOf(Promise);
    const { worked } = r as Exclude<typeof r, Promise<unknown>>;
    expect(seen).toEqual([['item', { n: 2 }, '{"a":1}', { a: 1 }, { x: 1 }, WORKER]]);
    expect(worked.result).toEqual({ title: 't', follow: ['http://127.0.0.1/api/2.json'] });
  });

  it("awaits an async handle; a throw or a rejection is the page's source error, the body still kept", async () => {
    const asyncSrc = running({ name: 'a', handle: async () => ({ data: { ok: true } }) });
    expect((await workPage(job(1, '{}'), asyncSrc)).worked.result).toEqual({ data: { ok: true } });
    const throws = running({
      name: 't',
      handle: (page) => {
        page.json();
        return {};
      },
    });
    const bad = await workPage(job(2, 'not json'), throws);
    expect(bad.worked.sourceError).toMatch(/JSON/);
    expect(bad.body?.toString()).toBe('not json');
    const rejects = running({
      name: 'r',
      handle: async () => {
        throw new Error('first line\nsecond line');
      },
    });
    expect((await workPage(job(3, '{}'), rejects)).worked.sourceError).toBe('first line');
    const wrong = running({ name: 'w', handle: () => ({ follow: 'x' }) as never });
    expect((await workPage(job(4, '{}'), wrong)).worked.sourceError).toBe(
      'follow: expected an array, got "x"',
    );
  });

  it('bytes the source chose replace the body: its size and hash are theirs', async () => {
    const src = running({ name: 'f', handle: () => ({ file: { body: 'chosen', extension: 'md' } }) });
    const { worked, body } = await workPage(job(1, '{"long":"original body"}'), src);
    expect(body?.toString()).toBe('chosen');
    expect(worked.bytes).toBe(6);
    expect(worked.sha256).toBe(createHash('sha256').update('chosen').digest('hex'));
    expect(worked.result).toEqual({ extension: 'md' });
  });
});

describe('a user module in the page thread', () => {
  it('is imported by path; its async handle runs in order; its log lines come back with the page', async () => {
    const out = tempDir();
    const logs: SourceLogLine[] = [];
    const p = new ThreadedPageProcessor(
      {
        pageWorker: path.resolve('dist/engine/page-worker.js'),
        bodyWriter: path.resolve('dist/engine/body-writer.js'),
      },
      {
        ref: {
          kind: 'module',
          path: path.resolve(import.meta.dirname, '../fixtures/sources/async-json.mjs'),
        },
        options: {},
        seeds: [],
        worker: WORKER,
      },
      out,
      1 << 20,
      (lines) => logs.push(...lines),
    );
    const done = await Promise.all([
      p.work(job(1, '{"id":1}', { label: 'a', userData: [1] })),
      p.work(job(2, '{"id":2}')),
      p.work(job(3, '{"id":3,"fail":true}')),
    ]);
    expect(done.map((w) => w.result?.title ?? w.sourceError)).toEqual(['item 1', 'item 2', 'refused 3']);
    expect(done[0].result?.data).toEqual({ id: 1, label: 'a', userData: [1] });
    expect(done[0].bytes).toBe(4);
    expect(logs.map((l) => `${l.level} ${l.message} ${JSON.stringify(l.fields)}`)).toEqual([
      'info read {"id":1}',
      'info read {"id":2}',
      'warn even id {"id":2}',
    ]);
    expect(await p.store(1, 'http://127.0.0.1/api/1.json', 'md')).toBe('files/127.0.0.1/api/1.json.md');
    await p.close();
  });
});
