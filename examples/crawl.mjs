// Crawl a site with the library API and print the summary:
//   node examples/crawl.mjs https://www.example.org/docs/ [out-dir]
// Ctrl-C stops gracefully (in-flight requests finish, state is flushed; run again to continue).
import { existsSync } from 'node:fs';
import { crawl } from 'web-collector';

const [url, out = './data'] = process.argv.slice(2);
if (!url) {
  console.error('usage: node examples/crawl.mjs <url> [out-dir]');
  process.exit(2);
}
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());

const summary = await crawl({
  seeds: [url],
  out,
  resume: existsSync(out), // continue an earlier run into the same directory
  delay: '250ms',
  maxPages: 500,
  signal: stop.signal,
});
console.log(`${summary.itemsThisRun} items (${summary.errors} errors), ${summary.bytes} bytes in ${summary.seconds} s → ${summary.out}`);
