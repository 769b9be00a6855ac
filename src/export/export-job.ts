/**
 * One `collector export`: the items of a data directory (item-reader.ts) written to one output
 * (export-output.ts) in one format, with the chosen columns. The output file appears only when
 * the export is complete; a data directory without items gives {@link NoItemsError} and no file.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../config/usage-error.js';
import { selectColumns } from './columns.js';
import { csvWriter } from './csv-format.js';
import { OutputClosedError, openOutput } from './export-output.js';
import type { Format, FormatWriter } from './format-writer.js';
import { ItemReader, type ReadOptions, type ReadStats } from './item-reader.js';
import { jsonlWriter } from './jsonl-format.js';
import { type ParquetLimits, parquetWriter } from './parquet-format.js';

/** What to export, as `collector export` takes it. */
export interface ExportJobOptions extends ReadOptions {
  /** The data directory. */
  dataDir: string;
  format: Format;
  /** `-` (standard output) or a file. */
  out: string;
  /** Replace an existing `out`. */
  force?: boolean;
  /** Column names (`--fields`); default every column, `text` only with `withContent`. */
  fields?: string[];
  /** Stops the export (its file is not made) when it aborts. */
  signal?: AbortSignal;
  /** Parquet row group limits (tests). */
  parquet?: ParquetLimits;
}

/** What an export did. */
export interface ExportSummary {
  /** Rows written. */
  rows: number;
  stats: ReadStats;
  /** Standard output closed by its reader before the end (`| head`): the rest was not written. */
  outputClosed: boolean;
}

/** The data directory has no item (no items file, or none with a whole, readable line). */
export class NoItemsError extends Error {
  constructor(dataDir: string) {
    super(`no items in ${path.join(dataDir, 'items')}: nothing to export`);
    this.name = 'NoItemsError';
  }
}

/**
 * Run an export.
 * @throws UsageError for a bad `--data`, `--fields`, an existing `--out` without `force`, or
 *   Parquet to a terminal; NoItemsError; the AbortSignal's reason when it aborted; I/O errors.
 *   On any of them no output file is made.
 */
export async function runExport(options: ExportJobOptions): Promise<ExportSummary> {
  const dataDir = path.resolve(options.dataDir);
  const st = await fs.stat(dataDir).catch(() => null);
  if (!st?.isDirectory()) {
    const what = st === null ? 'not found' : 'is a file, not a directory';
    throw new UsageError(`--data ${options.dataDir}: ${what}; give the data directory of a collector`);
  }
  const columns = selectColumns(options.fields, options.withContent === true);
  const withContent = options.withContent === true || columns.some((c) => c.name === 'text');
  const output = await openOutput(options.out, options.force === true);
  if (options.format === 'parquet' && output.isTerminal) {
    await output.abort();
    throw new UsageError('--format parquet: binary output to a terminal; give --out FILE, or pipe it');
  }
  // Parquet takes a text stored as UTF-8 as its bytes (item-text.ts, itemTextUtf8).
  const reader = new ItemReader(dataDir, { ...options, withContent, utf8Text: options.format === 'parquet' });
  let writer: FormatWriter | null = null;
  const open = (): FormatWriter => {
    writer ??=
      options.format === 'jsonl'
        ? jsonlWriter(columns, output)
        : options.format === 'csv'
          ? csvWriter(columns, output)
          : parquetWriter(columns, output, options.parquet);
    return writer;
  };
  let rows = 0;
  try {
    for await (const record of reader.records()) {
      options.signal?.throwIfAborted();
      const busy = open().row(record);
      if (busy) await busy;
      rows++;
    }
    if (reader.stats.lines === 0) throw new NoItemsError(dataDir);
    await open().end();
    await output.commit();
  } catch (e) {
    await output.abort();
    if (e instanceof OutputClosedError) return { rows, stats: reader.stats, outputClosed: true };
    throw e;
  }
  return { rows, stats: reader.stats, outputClosed: false };
}

/** The summary as one line, e.g. `exported 416 items to out.parquet (420 lines read: 4 older versions)`. */
export function summaryLine(summary: ExportSummary, out: string): string {
  const { stats } = summary;
  const left = [
    stats.olderVersions > 0 ? `${stats.olderVersions} older versions left out` : '',
    stats.filteredOut > 0 ? `${stats.filteredOut} filtered out` : '',
    stats.damaged > 0 ? `${stats.damaged} damaged lines skipped` : '',
    stats.missingContent > 0 ? `${stats.missingContent} content files missing` : '',
  ].filter(Boolean);
  const to = out === '-' ? 'standard output' : out;
  return `exported ${summary.rows} items to ${to} (${stats.lines} lines read from ${stats.files} item files${left.length > 0 ? `: ${left.join(', ')}` : ''})`;
}
