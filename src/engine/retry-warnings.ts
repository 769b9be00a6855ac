/**
 * Warnings about hosts that do not answer (connection refused, DNS failure, timeout): one line
 * as soon as a URL of such a host is retried — `127.0.0.1:9: connection refused, retrying in 1.2 s
 * (1/3)` — so a dead host is reported at once instead of looking like a hang. A host that never
 * answered is told at its first failure; one that answered before, at its second failure in a
 * row (a single reset connection on a live site is no news). Per host, each retry number is told
 * once (a thousand queued URLs of one dead host make three lines, not three thousand), again
 * after the host answered in between; past a budget per process only the log gets them.
 */
import { type FetchErrorKind, NO_ANSWER_KINDS, shortCause } from '../http/fetch-error.js';

/** Warning lines told per process before they go to the log only. */
export const WARNING_LINE_LIMIT = 50;

/** Hosts remembered (least recently seen forgotten first: then taken for never answered). */
export const WARNING_HOSTS_KEPT = 10_000;

/** Where a warning goes: the line for a person, and its fields for the log. */
export type WarningSink = (line: string, fields: Record<string, unknown>) => void;

/** The retry warnings of one worker. */
export class RetryWarnings {
  /** Per host, in recency order: whether it answered, failures since, retry number last told. */
  private readonly hosts = new Map<string, { answered: boolean; failures: number; told: number }>();
  private lines = 0;

  /**
   * @param tell the line is shown (stderr of the collector) and logged.
   * @param log the line is only logged (past {@link WARNING_LINE_LIMIT}).
   * @param retries `--retries`: the n of "(k/n)".
   */
  constructor(
    private readonly tell: WarningSink,
    private readonly log: WarningSink,
    private readonly retries: number,
    private readonly limit = WARNING_LINE_LIMIT,
  ) {}

  /**
   * A URL of `host` failed and will be tried again.
   * @param retry the retry number this wait leads to (1 = first retry).
   * @param delayMs the wait before it.
   */
  retrying(
    host: string,
    url: string,
    kind: FetchErrorKind,
    message: string,
    retry: number,
    delayMs: number,
  ): void {
    if (!NO_ANSWER_KINDS.has(kind)) return;
    const h = this.touch(host);
    h.failures++;
    if ((h.answered && h.failures < 2) || h.told >= retry) return;
    h.told = retry;
    const line = `${host}: ${shortCause(message)}, retrying in ${seconds(delayMs)} (${retry}/${this.retries})`;
    const fields = { host, url, kind, message, retry, delayMs: Math.round(delayMs) };
    this.lines++;
    if (this.lines <= this.limit) this.tell(line, fields);
    else this.log(line, fields);
    if (this.lines === this.limit) {
      this.tell(`more warnings about hosts that do not answer go to the log only`, {});
    }
  }

  /** The host answered (any HTTP status): its next failure is told from the first retry again. */
  answered(host: string): void {
    const h = this.touch(host);
    h.answered = true;
    h.failures = 0;
    h.told = 0;
  }

  /** The host's entry, made most recent (created when new; the oldest forgotten past the bound). */
  private touch(host: string): { answered: boolean; failures: number; told: number } {
    let h = this.hosts.get(host);
    if (h === undefined) {
      h = { answered: false, failures: 0, told: 0 };
      if (this.hosts.size >= WARNING_HOSTS_KEPT) this.hosts.delete(this.hosts.keys().next().value as string);
    } else {
      this.hosts.delete(host);
    }
    this.hosts.set(host, h);
    return h;
  }
}

/** `1.2 s` under 10 s, else whole seconds. */
function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
