/**
 * The worker type's source in one worker of the engine: loaded, put to work with its context
 * (options, configured seeds, worker), its log lines written to the worker's log and its warnings
 * and errors counted in the worker's stats (so in status.json).
 */
import type { Logger } from 'pino';
import type { LoadedSource } from '../sources/load-source.js';
import { type RunningSource, runSource, type SourceLogLevel, sourceLog } from '../sources/source-runner.js';
import type { CrawlStats } from './crawl-stats.js';
import type { SourceLogLine } from './page-work.js';

/** The worker type's source, loaded, with what its context is made of. */
export interface EngineSource {
  loaded: LoadedSource;
  /** Its options, parsed by its schema. */
  options: Record<string, unknown>;
  /** Its options as written (a page thread parses them again). */
  rawOptions: Record<string, unknown>;
  /** The configured seeds, canonical (`ctx.seeds`). */
  seeds: string[];
}

/**
 * The source at work in this worker: its lines go to the worker log (with `source` and the
 * fields it gave) and its warnings and errors are counted in `stats`.
 */
export function openSource(
  deps: {
    source: EngineSource;
    log: Logger;
    workerId: string;
    partition?: { index: number; count: number };
    onSourceLog?: (level: SourceLogLevel) => void;
  },
  stats: CrawlStats,
): {
  source: RunningSource;
  writeLog: (lines: SourceLogLine[]) => void;
} {
  const { loaded, options, seeds } = deps.source;
  const name = loaded.def.name;
  const write = (level: SourceLogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (level === 'warn') stats.sourceWarnings++;
    else if (level === 'error') stats.sourceErrors++;
    deps.onSourceLog?.(level);
    deps.log[level]({ ...fields, source: name }, message);
  };
  const part = deps.partition;
  const worker = { id: deps.workerId, index: part?.index ?? 0, count: part?.count ?? 1 };
  return {
    source: runSource(loaded, options, seeds, worker, sourceLog(write)),
    writeLog: (lines) => {
      for (const l of lines) write(l.level, l.message, l.fields);
    },
  };
}
