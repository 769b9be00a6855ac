/**
 * The export formats (`--format`) and what each writer does: take records one at a time, write
 * them to the output as the format has them, and finish the file.
 */
import { UsageError } from '../config/usage-error.js';
import type { ExportRecord } from './item-reader.js';

/** The formats, as `--format` names them. */
export const FORMATS = ['jsonl', 'csv', 'parquet'] as const;
/** One of {@link FORMATS}. */
export type Format = (typeof FORMATS)[number];

/** Writes records in one format. */
export interface FormatWriter {
  /** Add one record; await the result when it is a promise (the output is busy). */
  row(record: ExportRecord): Promise<void> | undefined;
  /** Write what is left (Parquet: the last row group and the footer). */
  end(): Promise<void>;
}

/**
 * `--format` checked.
 * @throws UsageError naming the valid formats.
 */
export function parseFormat(value: string): Format {
  const f = value.trim().toLowerCase();
  if ((FORMATS as readonly string[]).includes(f)) return f as Format;
  throw new UsageError(
    `--format ${JSON.stringify(value)}: unknown format; valid formats: ${FORMATS.join(', ')}`,
  );
}
