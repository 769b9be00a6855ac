/**
 * JSON Lines export: one JSON object a line (LF), with the chosen columns as keys in column order,
 * null for an absent value, `fetched_at` as ISO 8601 (UTC, ms), `data`/`user_data`/`extra` as
 * nested objects.
 */
import type { Column } from './columns.js';
import type { ExportOutput } from './export-output.js';
import type { ExportRecord } from './item-reader.js';
import type { FormatWriter } from './format-writer.js';

/** A writer of JSON Lines to `output`. */
export function jsonlWriter(columns: readonly Column[], output: ExportOutput): FormatWriter {
  return {
    row(record: ExportRecord) {
      const o: Record<string, unknown> = {};
      for (const c of columns) {
        const v = c.get(record);
        o[c.name] = c.type === 'timestamp' ? new Date(v as number).toISOString() : v;
      }
      return output.write(`${JSON.stringify(o)}\n`);
    },
    async end() {},
  };
}
