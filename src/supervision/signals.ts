/**
 * The stop signals of a collector process: the first SIGINT/SIGTERM asks for a graceful stop,
 * each later one for an immediate one (in-flight requests abandoned; state stays consistent).
 * Under npm, the launcher going away counts as a SIGTERM (`launcher-watch.ts`).
 */
import { watchLauncher } from './launcher-watch.js';

/**
 * Handle SIGINT and SIGTERM until the returned function is called.
 * @param first called on the first signal; @param again on every later one.
 * @returns removes the handlers.
 */
export function onStopSignals(
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): () => void {
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals === 1) first(signal);
    else again(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const offWatch = watchLauncher(() => {
    process.stderr.write('collector: npm, which started it, is gone: stopping as for SIGTERM\n');
    onSignal('SIGTERM');
  });
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    offWatch();
  };
}
