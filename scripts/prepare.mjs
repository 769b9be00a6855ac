#!/usr/bin/env node
/**
 * The `prepare` script of a clone: builds `dist/` (`npm run build`) when it is missing or older
 * than the build's inputs, and does nothing otherwise. `npm ci` runs it (a fresh clone builds);
 * so does `npx collector` in a clone, whose first run links the clone into npx's cache and runs
 * its `prepare` — a rebuild there would delete `dist/` under a running crawl or test suite.
 * The rule is `dist-freshness.mjs`, shared with the test harness's `test/fixtures/build-once.ts`.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distIsStale } from './dist-freshness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
if (distIsStale(root)) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
