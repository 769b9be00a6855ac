/**
 * The source of a crawl or of a worker type, set up before anything starts: named (a built-in or
 * a module path) or given as an object, loaded, its options parsed. A module that fails to load,
 * or options its schema refuses, are a one-line usage error (exit 2) with nothing touched.
 */
import path from 'node:path';
import { WORKER_COMMON_KEYS } from '../config/config-file.js';
import { type LoadedSource, loadSource, sourceFromObject, sourceRef } from '../sources/load-source.js';
import type { SourceDefinition } from '../sources/source.js';
import { type OptionsPlace, parseSourceOptions } from '../sources/source-options.js';

/** A loaded source with its options. */
export interface SourceSetup {
  loaded: LoadedSource;
  /** Parsed by the source's schema. */
  options: Record<string, unknown>;
  /** As written: sent to worker processes and page threads, which parse them again. */
  rawOptions: Record<string, unknown>;
}

/**
 * Load the source `spec` names (or take it as given) and parse its options.
 * @param baseDir what a relative module path is relative to.
 * @param place where the options were written, for messages.
 * @throws UsageError (see the module comment).
 */
export async function setUpSource(
  spec: string | SourceDefinition,
  baseDir: string,
  rawOptions: Record<string, unknown>,
  place: OptionsPlace,
): Promise<SourceSetup> {
  const loaded =
    typeof spec === 'string' ? await loadSource(sourceRef(spec, baseDir)) : sourceFromObject(spec);
  const raw = withPaths(loaded.def, rawOptions, baseDir);
  const options = parseSourceOptions(loaded.def, raw, WORKER_COMMON_KEYS, place);
  return { loaded, options, rawOptions: raw };
}

/**
 * The options as written with the file paths the source declares (`pathOptions`) made absolute
 * against `baseDir` (the config file's directory, or the current one on the command line).
 */
export function withPaths(
  def: SourceDefinition,
  rawOptions: Record<string, unknown>,
  baseDir: string,
): Record<string, unknown> {
  const raw = { ...rawOptions };
  for (const key of def.pathOptions ?? []) {
    if (typeof raw[key] === 'string') raw[key] = path.resolve(baseDir, raw[key] as string);
  }
  return raw;
}
