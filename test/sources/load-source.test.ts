import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDefinition, loadSource, sourceRef } from '../../src/sources/load-source.js';
import { defineSource } from '../../src/sources/source.js';
import { parseSourceOptions } from '../../src/sources/source-options.js';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/sources');
const COMMON = new Set(['seeds', 'delay', 'maxPages']);

describe('naming and loading a source', () => {
  it('a built-in by name, anything with a path shape as a module relative to the base directory', () => {
    expect(sourceRef('crawl', '/x')).toEqual({ kind: 'builtin', name: 'crawl' });
    expect(sourceRef('./s/hn.mjs', '/cfg')).toEqual({ kind: 'module', path: '/cfg/s/hn.mjs' });
    expect(sourceRef('hn.mjs', '/cfg')).toEqual({ kind: 'module', path: '/cfg/hn.mjs' });
    expect(sourceRef('/abs/hn.js', '/cfg')).toEqual({ kind: 'module', path: '/abs/hn.js' });
    expect(() => sourceRef('hn', '/cfg')).toThrow(
      'unknown source "hn": expected a built-in (crawl, sitemap, feed, urls, github-trending, github-search) or a module path such as ./sources/hn.mjs',
    );
  });

  it("loads a module's default export; refuses what is missing, broken or not a source", async () => {
    const probe = await loadSource({ kind: 'module', path: path.join(FIXTURES, 'probe.mjs') });
    expect(probe.def.name).toBe('probe');
    expect(probe.builtin).toBe(false);
    await expect(loadSource({ kind: 'module', path: '/nowhere/x.mjs' })).rejects.toThrow(
      'source /nowhere/x.mjs: not found',
    );
    await expect(
      loadSource({ kind: 'module', path: path.join(FIXTURES, 'throws-on-load.mjs') }),
    ).rejects.toThrow(/throws-on-load\.mjs: cannot load: this module cannot load$/);
    await expect(
      loadSource({ kind: 'module', path: path.join(FIXTURES, 'not-a-source.mjs') }),
    ).rejects.toThrow(/handle: expected a function/);
  });

  it.each([
    [null, /not a source/],
    [{ name: 'a b', handle() {} }, /name: expected letters, digits/],
    [{ name: 'a', handle() {}, seeds: [] }, /seeds: expected a function/],
    [{ name: 'a', handle() {}, threadSafe: 'yes' }, /threadSafe: expected true or false/],
    [{ name: 'a', handle() {}, options: { shape: {} } }, /options: expected a zod schema/],
  ])('checks the shape of %j', (def, message) => {
    expect(() => checkDefinition(def, 'source x')).toThrow(message);
  });
});

describe("a source's options", () => {
  const withSchema = defineSource({
    name: 'api',
    options: z.object({ api: z.url(), perPage: z.number().int().default(10) }),
    handle: () => ({}),
  });
  const place = { prefix: 'c.yaml: ', base: ['workers', 1] };

  it('are parsed by its schema (defaults applied)', () => {
    expect(parseSourceOptions(withSchema, { api: 'http://127.0.0.1/v0' }, COMMON, place)).toEqual({
      api: 'http://127.0.0.1/v0',
      perPage: 10,
    });
  });

  it('name the file, the worker and the key when refused; unknown keys list what the source takes', () => {
    expect(() => parseSourceOptions(withSchema, { api: 'nope' }, COMMON, place)).toThrow(
      /^c\.yaml: workers\[1\]\.api: .*, got "nope"$/,
    );
    expect(() => parseSourceOptions(withSchema, {}, COMMON, place)).toThrow(
      /^c\.yaml: workers\[1\]\.api: missing/,
    );
    expect(() => parseSourceOptions(withSchema, { api: 'http://x/', colour: 1 }, COMMON, place)).toThrow(
      /^c\.yaml: workers\[1\]: unknown key "colour" \(source api takes api, perPage; every worker takes /,
    );
    const none = defineSource({ name: 'plain', handle: () => ({}) });
    expect(parseSourceOptions(none, {}, COMMON, place)).toEqual({});
    expect(() =>
      parseSourceOptions(none, { x: 1 }, COMMON, { prefix: '--source-option ', base: [] }),
    ).toThrow('--source-option: unknown key "x"');
  });

  it('may not take a common key', () => {
    const clash = defineSource({
      name: 'c',
      options: z.object({ maxPages: z.number() }),
      handle: () => ({}),
    });
    expect(() => parseSourceOptions(clash, {}, COMMON, place)).toThrow(
      'source c: option "maxPages" is also a common worker key; the source must name it differently',
    );
  });
});
