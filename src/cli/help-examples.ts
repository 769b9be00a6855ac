/**
 * The "Examples:" section each command's `--help` ends with: two or three command lines that run
 * as written (against your own sites, or the demo's with `npm run demo`).
 */
import type { Command } from 'commander';

/** Example command lines per command, each with an optional `# comment`. */
export const HELP_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  crawl: [
    'collector crawl https://docs.example.org/ -o docs-data --markdown all   # a docs site to Markdown',
    'collector crawl https://blog.example.net/ --sitemaps --feeds -n 500',
    'collector crawl --resume -o docs-data                                  # continue after a stop or a crash',
  ],
  run: [
    'collector run                                   # collector.yaml of this directory',
    'collector run -c /srv/collector/collector.yaml --metrics 127.0.0.1:9464',
    'collector run -c collector.yaml --backend redis://10.0.0.5:6379/0   # one of several machines',
  ],
  status: ['collector status --data data', 'collector status --data data --json | jq .totals'],
  stop: ['collector stop --backend redis://10.0.0.5:6379/0 --crawl-id docs'],
  watchdog: [
    'collector watchdog --data /srv/collector/data -c /srv/collector/collector.yaml   # from cron, every minute',
  ],
  size: ['collector size --data /srv/collector/data --every 1GB   # from cron: a line per milestone'],
  plan: ['collector plan -c collector.yaml', 'collector plan -c collector.yaml --cpus 2 --memory-limit 2G'],
  export: [
    'collector export --data data --format parquet --with-content --out pages.parquet',
    'collector export --data data --format csv --fields url,status,title --out pages.csv',
    'collector export --data data --ok-only --since 2026-12-01 > new.jsonl',
  ],
  install: [
    'collector install --cron -c /srv/collector/collector.yaml            # print the crontab block',
    'sudo collector install --systemd -c /srv/collector/collector.yaml --write',
  ],
};

/** The text added after a command's help (commander's `addHelpText('after', …)`). */
export function examplesText(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** Adds {@link HELP_EXAMPLES} to the help of each command of `program` that has some. */
export function addHelpExamples(program: Command): void {
  for (const c of program.commands) {
    const lines = HELP_EXAMPLES[c.name()];
    if (lines !== undefined) c.addHelpText('after', examplesText(lines));
  }
}
