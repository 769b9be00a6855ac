/**
 * `collector export --data DIR --format jsonl|csv|parquet [--out FILE|-] [--with-content] …`: the
 * items of a data directory as one file (docs/export.md). Safe while a collector is running.
 * Exit 0 done, 2 bad usage, 69 no items to export.
 */
import { type Command, InvalidArgumentError } from 'commander';

/** Warnings printed (damaged lines, missing content files); the rest are counted in the summary. */
const WARNINGS_SHOWN = 20;

/** The values of a repeatable flag that also takes comma-separated lists. */
function collectList(value: string, previous: string[] = []): string[] {
  const names = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError('expected one or more names, comma-separated');
  return previous.concat(names);
}

/** The format a file name implies, for an `--out` without `--format`. */
function formatOf(out: string): string {
  if (/\.parquet$/i.test(out)) return 'parquet';
  if (/\.csv$/i.test(out)) return 'csv';
  return 'jsonl';
}

interface ExportFlags {
  data: string;
  format?: string;
  out: string;
  force: boolean;
  withContent: boolean;
  fields?: string[];
  source?: string[];
  since?: string;
  okOnly: boolean;
  allVersions: boolean;
}

/** Register the `export` command. */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      'write the items of a data directory as one JSONL, CSV or Parquet file, in fetch order, each page once (docs/export.md)',
    )
    .option('--data <dir>', 'data directory (--out of a crawl, data: of a config)', './data')
    .option('--format <format>', 'jsonl, csv or parquet (default: from --out .csv/.parquet, else jsonl)')
    .option('--out <file>', 'output file, or - for standard output', '-')
    .option('--force', 'replace --out when it exists', false)
    .option('--with-content', 'add the text column: the Markdown of a page, or a text body', false)
    .option(
      '--fields <names>',
      'columns to write, comma-separated, in that order (docs/export.md)',
      collectList,
    )
    .option('--source <name>', 'only items of this source (repeatable, or comma-separated)', collectList)
    .option('--since <when>', 'only items fetched since an ISO 8601 date or time, or of round:N and later')
    .option(
      '--ok-only',
      'only successful fetches (2xx, no error): the newest good version of each page',
      false,
    )
    .option('--all-versions', 'every fetch of a page, not only its newest version', false)
    .action(async (o: ExportFlags) => {
      const { parseFormat } = await import('../export/format-writer.js');
      const { parseSince } = await import('../export/item-filter.js');
      const { NoItemsError, runExport, summaryLine } = await import('../export/export-job.js');
      const { NO_ITEMS_EXIT_CODE } = await import('../runtime/exit-codes.js');
      const format = parseFormat(o.format ?? formatOf(o.out));
      const since = o.since === undefined ? undefined : parseSince(o.since);
      let warnings = 0;
      const onWarning = (message: string) => {
        if (++warnings <= WARNINGS_SHOWN) process.stderr.write(`collector: warning: ${message}\n`);
      };
      const stop = new AbortController();
      const onSignal = () => stop.abort(new Error('stopped by a signal'));
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const summary = await runExport({
          dataDir: o.data,
          format,
          out: o.out,
          force: o.force,
          fields: o.fields,
          withContent: o.withContent,
          sources: o.source,
          since,
          okOnly: o.okOnly,
          allVersions: o.allVersions,
          onWarning,
          signal: stop.signal,
        });
        // A reader that closed standard output (`| head`) wanted no more: nothing to say.
        if (summary.outputClosed) return;
        const more =
          warnings > WARNINGS_SHOWN ? ` (${warnings - WARNINGS_SHOWN} more warnings not shown)` : '';
        process.stderr.write(`collector: ${summaryLine(summary, o.out)}${more}\n`);
      } catch (e) {
        if (e instanceof NoItemsError) {
          process.stderr.write(`collector: ${e.message}\n`);
          process.exitCode = NO_ITEMS_EXIT_CODE;
          return;
        }
        if (stop.signal.aborted) {
          process.stderr.write(
            `collector: export stopped by a signal; ${o.out === '-' ? 'output incomplete' : `${o.out} not written`}\n`,
          );
          process.exitCode = 130;
          return;
        }
        throw e;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
