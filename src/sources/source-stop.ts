/**
 * A worker type its source stopped (`HandleResult.stop`: GitHub rejected the token): the exit
 * code its processes and a one-shot crawl end with, and the line that says so.
 */

/**
 * A source stopped its worker type because it cannot go on with what it was given: 78,
 * `EX_CONFIG` of sysexits(3) ("something was found in an unconfigured or misconfigured state").
 * A restart with the same settings would fail the same way, so the supervisor does not restart
 * it either.
 */
export const SOURCE_STOPPED_EXIT_CODE = 78;

/** `worker type <type> stopped: <message>` (the message as the item's error says it). */
export function sourceStoppedLine(type: string, message: string): string {
  return `worker type ${type} stopped: ${message}`;
}
