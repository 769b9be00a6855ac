#!/usr/bin/env node
/**
 * Keeps the `prepare` script out of the packed package.json. In a clone, `prepare` builds
 * `dist/` during `npm ci`; in the package it would be an install script that npm asks a user to
 * approve (`npm install -g <tarball>` lists it: a non-registry source), although the package
 * ships built and needs none. So `prepack` renames it to `_prepare` (npm ignores that name) and
 * `postpack` renames it back — the way pinst handles husky's postinstall.
 *
 *   node scripts/pack-manifest.mjs disable   (prepack)
 *   node scripts/pack-manifest.mjs enable    (postpack)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json');
const mode = process.argv[2];
if (mode !== 'disable' && mode !== 'enable') {
  process.stderr.write('usage: node scripts/pack-manifest.mjs disable|enable\n');
  process.exit(2);
}
const text = fs.readFileSync(file, 'utf8');
const [from, to] = mode === 'disable' ? ['"prepare":', '"_prepare":'] : ['"_prepare":', '"prepare":'];
// A textual rename keeps the file byte for byte otherwise (key order, formatting).
if (text.includes(from)) fs.writeFileSync(file, text.replace(from, to));
