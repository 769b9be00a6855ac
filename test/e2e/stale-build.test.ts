/**
 * The end-to-end harness never runs a stale build: `dist/` older than any input of the build is
 * detected (the global setup then builds, and `startCli` refuses to start the old one).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { distIsStale } from '../fixtures/build-once.js';
import { tempDir } from '../fixtures/cli.js';

/** A fake checkout: a source file and the build's outputs, with chosen modification times (s). */
function checkout(
  srcAt: number,
  distAt: number,
  outputs = ['bundle/main.js', 'bundle/worker-main.js', 'cli/main.js'],
) {
  const root = tempDir('collector-stale-');
  const file = (p: string, at: number) => {
    const f = path.join(root, p);
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, '');
    fs.utimesSync(f, at, at);
    fs.utimesSync(path.dirname(f), at, at);
  };
  for (const p of ['scripts/bundle.mjs', 'tsconfig.build.json', 'tsconfig.json', 'package.json'])
    file(p, 1000);
  file('src/http/fetcher.ts', srcAt);
  fs.utimesSync(path.join(root, 'src'), 1000, 1000);
  for (const o of outputs) file(path.join('dist', o), distAt);
  return root;
}

describe('stale build detection (test/fixtures/build-once.ts)', () => {
  it('a dist/ newer than every source is fresh', () => {
    expect(distIsStale(checkout(2000, 3000))).toBe(false);
  });

  it('a source edited after the build makes dist/ stale', () => {
    expect(distIsStale(checkout(4000, 3000))).toBe(true);
  });

  it('a missing output (never built, or half built) is stale', () => {
    expect(distIsStale(checkout(2000, 3000, ['bundle/main.js', 'cli/main.js']))).toBe(true);
  });

  it('a source file deleted after the build (its folder changed) makes dist/ stale', () => {
    const root = checkout(2000, 3000);
    fs.utimesSync(path.join(root, 'src', 'http'), 4000, 4000);
    expect(distIsStale(root)).toBe(true);
  });

  it('this checkout was built from its current sources before the tests ran', () => {
    expect(distIsStale()).toBe(false);
  });
});
