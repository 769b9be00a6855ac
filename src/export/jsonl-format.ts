/**
 * JSON Lines export: one JSON object a line (LF), with the chosen columns as keys in column order,
 * null for an absent value, `fetched_at` as ISO 8601 (UTC, ms), `data`/`user_data`/`extra` as
 * nested objects. Each line is put together from its keys' JSON (made once) and each value's:
 * half the cost of stringifying an object made for it.
 */
import type { Column } from './columns.js';
import type { ExportOutput } from './export-output.js';
import type { FormatWriter } from './format-writer.js';
import type { ExportRecord } from './item-reader.js';

/** A writer of JSON Lines to `output`. */
export function jsonlWriter(columns: readonly Column[], output: ExportOutput): FormatWriter {
  const keys = columns.map((c, i) => `${i === 0 ? '{' : ','}${JSON.stringify(c.name)}:`);
  return {
    row(record: ExportRecord) {
      let line = '';
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i];
        const v = c.get(record);
        line += keys[i];
        if (v === null || v === undefined) line += 'null';
        else if (c.type === 'timestamp') line += `"${new Date(v as number).toISOString()}"`;
        else if (typeof v === 'number') line += String(v);
        else line += JSON.stringify(v);
      }
      return output.write(`${line}}\n`);
    },
    async end() {},
  };
}
