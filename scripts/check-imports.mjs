#!/usr/bin/env node
/**
 * Checks the layering of `src/` (DESIGN §2): no import cycle between modules (type-only imports
 * included), and no folder importing a folder above it. Run by `npm run lint`.
 *
 * Layers, top to bottom: the package entry (`src/index.ts`), cli → runtime, ops → supervision →
 * engine → sources, frontier, dedup, sinks → config, url, http, extract → types. A module may
 * import its own folder and any folder below.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const RANK = {
  '(entry)': 7,
  cli: 6,
  runtime: 5,
  // Beside the composition root: it starts the metrics server and notifies; the ops commands
  // read status.json (supervision) and use the data-dir lock (runtime).
  ops: 5,
  // `collector export` and the library's items(): reads the items and stored content back.
  export: 5,
  // Shared-backend implementations of the frontier and dedup interfaces; picked by runtime.
  backends: 2,
  supervision: 4,
  engine: 3,
  sources: 2,
  frontier: 2,
  dedup: 2,
  sinks: 2,
  config: 1,
  url: 1,
  http: 1,
  extract: 1,
  types: 0,
};

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const files = walk(root);
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/g;
const graph = new Map();
for (const f of files) {
  const text = fs.readFileSync(f, 'utf8');
  const deps = [];
  for (const m of text.matchAll(IMPORT))
    deps.push(path.resolve(path.dirname(f), m[1].replace(/\.js$/, '.ts')));
  graph.set(f, deps);
}

const rel = (f) => path.relative(root, f);
const folder = (f) => {
  const parts = rel(f).split(path.sep);
  return parts.length === 1 ? '(entry)' : parts[0];
};
const problems = [];

for (const [f, deps] of graph) {
  for (const d of deps) {
    if (!graph.has(d)) problems.push(`${rel(f)}: imports ${rel(d)}, which does not exist`);
    const a = RANK[folder(f)];
    const b = RANK[folder(d)];
    if (a === undefined)
      problems.push(`${rel(f)}: folder ${folder(f)} has no layer (add it to scripts/check-imports.mjs)`);
    else if (b !== undefined && folder(f) !== folder(d) && b > a) {
      problems.push(`${rel(f)}: imports ${rel(d)} from a layer above (${folder(d)} over ${folder(f)})`);
    }
  }
}

// Cycles: depth-first search, reporting each back edge's cycle once.
const state = new Map();
const stack = [];
function visit(f) {
  state.set(f, 'open');
  stack.push(f);
  for (const d of graph.get(f) ?? []) {
    if (!graph.has(d)) continue;
    if (state.get(d) === 'open')
      problems.push(`import cycle: ${[...stack.slice(stack.indexOf(d)), d].map(rel).join(' → ')}`);
    else if (!state.has(d)) visit(d);
  }
  stack.pop();
  state.set(f, 'done');
}
for (const f of graph.keys()) if (!state.has(f)) visit(f);

if (problems.length > 0) {
  for (const p of [...new Set(problems)]) process.stderr.write(`${p}\n`);
  process.exit(1);
}
process.stdout.write(`imports: ${files.length} modules, no cycle, no upward import\n`);
