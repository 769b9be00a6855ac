#!/usr/bin/env node
/**
 * Builds `dist/status-page.html`: the status page template (`src/ops/status-page.html`) with
 * uPlot's CSS and JS inlined, so the page a collector serves needs nothing from any other host.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const uplotDir = path.dirname(require.resolve('uplot/dist/uPlot.iife.min.js'));
const css = readFileSync(path.join(uplotDir, 'uPlot.min.css'), 'utf8');
// `</script` inside the inlined code would end the script element early.
const js = readFileSync(path.join(uplotDir, 'uPlot.iife.min.js'), 'utf8').replaceAll(
  '</script',
  '<\\/script',
);
const template = readFileSync(path.join(root, 'src/ops/status-page.html'), 'utf8');
if (!template.includes('/*UPLOT_CSS*/') || !template.includes('/*UPLOT_JS*/')) {
  throw new Error('src/ops/status-page.html: the /*UPLOT_CSS*/ and /*UPLOT_JS*/ markers are missing');
}
const page = template.replace('/*UPLOT_CSS*/', () => css).replace('/*UPLOT_JS*/', () => js);
writeFileSync(path.join(root, 'dist/status-page.html'), page);
