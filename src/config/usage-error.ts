/**
 * The error for a user mistake (bad flag, bad URL, unusable --out): the CLI prints its message
 * as one line on stderr and exits 2, never with a stack trace.
 */

/** A mistake in what the user asked for; `message` is one line naming the input and the fix. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
