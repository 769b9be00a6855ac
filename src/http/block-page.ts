/**
 * Block and challenge pages: answers that are not the page asked for but a wall put in front of
 * it — a bot-challenge interstitial (Cloudflare's "Just a moment...", DataDome, PerimeterX,
 * Imperva), a CAPTCHA or "verify you are human" page, a JavaScript cookie challenge, a login
 * wall — often with status 403, 429 or 503, sometimes 200. Recognised by a small rule set (the
 * status, a header, markers in a small body; {@link BLOCK_RULES}) that config `blockPatterns`
 * extends. Such an answer is an error item of kind `blocked`, never a page's content; its host is
 * slowed down as for a 429 and the URL tried again later.
 */
import { decodeContent, gzipDeclaredSize, TooLargeError } from './decompress.js';
import type { HopResponse } from './fetcher.js';

/** Bytes of a body looked at (decoded); challenge pages are small, a longer body is read this far. */
export const BLOCK_SCAN_BYTES = 256 * 1024;

/** Largest body a page-sized rule (`maxBytes`) applies to: a wall says little. */
const SMALL = 64 * 1024;

/** One rule: all its conditions hold. */
export interface BlockRule {
  /** What the item's message names, e.g. `captcha`. */
  name: string;
  /** Statuses it applies to; absent: any. */
  statuses?: readonly number[];
  /** A response header (lowercase name) whose value matches. */
  header?: readonly [string, RegExp];
  /** Matches the decoded body (its first {@link BLOCK_SCAN_BYTES}). */
  body?: RegExp;
  /**
   * Lowercase strings of which every text `body` matches holds one (case-insensitively): a page
   * with none of them is not looked at by `body` (one scan for the hints of every rule instead of
   * one per rule). Absent: `body` always runs.
   */
  hints?: readonly string[];
  /** Applies only to bodies of at most this many bytes. */
  maxBytes?: number;
  /** Not when the requested URL matches (a login page asked for is not a login wall). */
  unlessUrl?: RegExp;
}

/** Statuses a server refuses a bot with. */
const REFUSALS = [403, 429, 503] as const;

/** Hints of the bot-challenge markers (see {@link BlockRule.hints}). */
const CHALLENGE_HINTS = [
  'challenge-platform',
  'just a moment',
  '_cf_chl_opt',
  'cf-browser-verification',
  'captcha-delivery.com',
  'px-captcha',
  '_incapsula_resource',
  'ddos-guard',
];

/**
 * The built-in rules, in order (the first that holds names the block). Markers are those the
 * common services put in their challenge pages; a page that only embeds a CAPTCHA widget (a
 * contact form) is not one: the phrases are asked for, in a page-sized body.
 */
export const BLOCK_RULES: readonly BlockRule[] = [
  // Cloudflare says so in a header on every challenge (managed, JS, interactive).
  { name: 'bot-challenge', header: ['cf-mitigated', /challenge/i] },
  {
    name: 'bot-challenge',
    statuses: REFUSALS,
    body: /cdn-cgi\/challenge-platform\/h\/|<title>\s*just a moment\.\.\.\s*<\/title>|_cf_chl_opt|cf-browser-verification|captcha-delivery\.com|px-captcha|_incapsula_resource|ddos-guard/i,
    hints: CHALLENGE_HINTS,
  },
  // The same interstitials served with 200: only their own markers, not Cloudflare's page script.
  {
    name: 'bot-challenge',
    body: /<title>\s*just a moment\.\.\.\s*<\/title>|_cf_chl_opt|cf-browser-verification|captcha-delivery\.com|px-captcha/i,
    hints: CHALLENGE_HINTS,
    maxBytes: SMALL,
  },
  {
    name: 'captcha',
    body: /verify (?:that )?you(?:'re| are) (?:a )?human|are you a robot|i'?m not a robot|unusual traffic from your (?:computer|network)|pardon our interruption|request unsuccessful\. incapsula|attention required! \| cloudflare/i,
    hints: [
      'human',
      'robot',
      'unusual traffic from your',
      'pardon our interruption',
      'incapsula',
      'attention required',
    ],
    maxBytes: SMALL,
  },
  {
    name: 'access-denied',
    statuses: REFUSALS,
    body: /access denied|you have been blocked|request blocked|automated (?:access|requests|queries)/i,
    hints: ['access denied', 'you have been blocked', 'request blocked', 'automated '],
    maxBytes: SMALL,
  },
  // A tiny page whose only work is to set a cookie and reload: a JavaScript challenge.
  {
    name: 'js-challenge',
    body: /document\.cookie[\s\S]*location\.(?:reload|replace|href)/i,
    hints: ['document.cookie'],
    maxBytes: 4096,
  },
  // A sign-in form served for a page that is not one: titled so, or asking to sign in to go on.
  {
    name: 'login-wall',
    body: /<title>[^<]*(?:sign|log) ?in\b[^<]*<\/title>[\s\S]*type=["']?password|(?:sign|log) ?in to (?:continue|view|read)[\s\S]*type=["']?password/i,
    hints: ['password'],
    maxBytes: SMALL,
    unlessUrl: /log-?in|sign-?in|auth|account|session|register|signup/i,
  },
];

/**
 * Content types whose bodies are looked at: HTML, as walls are (a JSON API's refusal is its
 * source's to judge, and a plain-text file that quotes a marker is still that file).
 */
const TEXTUAL = /^(?:text\/html|application\/xhtml\+xml)/i;

/** Recognises block pages by the built-in rules and the configured patterns. */
export class BlockDetector {
  private readonly rules: readonly BlockRule[];
  /** Matches a text holding any rule's hint: without one, no hinted rule's `body` can match. */
  private readonly hinted: RegExp;

  /**
   * @param patterns config `blockPatterns`: regular expressions (case-insensitive) that make any
   *   answer whose body matches a block page, whatever its status.
   * @throws SyntaxError naming the pattern when one does not compile.
   */
  constructor(patterns: readonly string[] = []) {
    const own = patterns.map((p, i): BlockRule => {
      try {
        return { name: `blockPatterns[${i}]`, body: new RegExp(p, 'i') };
      } catch (e) {
        throw new SyntaxError(
          `blockPatterns[${i}]: invalid regular expression "${p}": ${(e as Error).message}`,
        );
      }
    });
    this.rules = [...own, ...BLOCK_RULES];
    const hints = new Set(this.rules.flatMap((r) => r.hints ?? []));
    this.hinted = new RegExp([...hints].map((h) => h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i');
  }

  /**
   * Whether `res`, the answer to `url`, is a block page.
   * @param body `res`'s body as the rules decode it; pass one to reuse what they inflated
   *   ({@link BodyWithin.whole}).
   * @returns the name of the rule that holds (`captcha`, `bot-challenge`, ...), or null.
   */
  judge(
    url: string,
    res: Pick<HopResponse, 'status' | 'headers' | 'contentType' | 'body' | 'contentEncoding' | 'encoded'>,
    body: BodyWithin = new BodyWithin(res),
  ): string | null {
    if (res.status >= 300 && res.status < 400) return null;
    // Decoded when a body rule is first met, only as far as that rule's size bound (a 200 over
    // the bounds is never inflated whole), and read as text only when a rule applies.
    let text: string | undefined;
    let hinted: boolean | undefined;
    const textual = res.contentType === null || TEXTUAL.test(res.contentType);
    for (const rule of this.rules) {
      if (rule.statuses !== undefined && !rule.statuses.includes(res.status)) continue;
      if (rule.header !== undefined) {
        const v = res.headers[rule.header[0]];
        const value = Array.isArray(v) ? v.join(', ') : v;
        if (value === undefined || !rule.header[1].test(value)) continue;
      }
      if (rule.unlessUrl?.test(url)) continue;
      if (rule.body !== undefined) {
        if (!textual) continue;
        const bytes = body.upTo(rule.maxBytes ?? BLOCK_DECODE_BYTES);
        if (bytes === null) return null;
        if (bytes === LARGER) continue;
        text ??= bytes.subarray(0, BLOCK_SCAN_BYTES).toString('latin1');
        if (rule.hints !== undefined) {
          hinted ??= this.hinted.test(text);
          if (!hinted) continue;
        }
        if (!rule.body.test(text)) continue;
      }
      return rule.name;
    }
    return null;
  }
}

/** Largest decoded body a rule without a size bound looks at the start of; a larger one is no wall. */
const BLOCK_DECODE_BYTES = BLOCK_SCAN_BYTES * 4;

/** A body holds more bytes than were asked for. */
export const LARGER = Symbol('larger');

/**
 * One response's body without its Content-Encoding, decoded as far as the rules ask: a rule with
 * a size bound needs to know only whether the body fits in it, so a large page is inflated up to
 * that bound (64 KiB), not whole. A second rule asking for more decodes again.
 */
export class BodyWithin {
  /** The last decode: its limit, result, and flag (a coding not applied, see `decodeContent`). */
  private got: { limit: number; body: Buffer | null | typeof LARGER; flag?: string } | undefined;

  constructor(
    private readonly res: Pick<HopResponse, 'body' | 'contentEncoding' | 'encoded' | 'contentType'>,
  ) {}

  /**
   * The decoded body when it holds at most `limit` bytes; {@link LARGER} when it holds more; null
   * when it cannot be decoded (corrupt).
   */
  upTo(limit: number): Buffer | null | typeof LARGER {
    const { res } = this;
    if (!res.encoded || res.contentEncoding === null) return res.body.length > limit ? LARGER : res.body;
    if (this.got === undefined || (this.got.body === LARGER && limit > this.got.limit)) {
      // A gzip body whose trailer declares more than the limit is not inflated to learn so (a
      // large page's first 64 KiB would be inflated here, then all of it by the page processor).
      const declared = isGzip(res.contentEncoding) ? gzipDeclaredSize(res.body) : null;
      this.got =
        declared !== null && declared > limit
          ? { limit, body: LARGER }
          : { limit, ...decodeUpTo(res, limit) };
    }
    const { body } = this.got;
    return body !== null && body !== LARGER && body.length > limit ? LARGER : body;
  }

  /**
   * The whole body without its Content-Encoding when a rule already inflated it (so the page
   * processor need not inflate it again), else null: nothing was inflated (no body rule applied,
   * or no coding), the body is larger than the rules looked, it is corrupt, or its coding was not
   * applied (unknown, or claimed but absent: the page processor flags those).
   */
  whole(): Buffer | null {
    const got = this.got;
    if (got === undefined || got.flag !== undefined) return null;
    return got.body === null || got.body === LARGER ? null : got.body;
  }
}

/** Whether a Content-Encoding value is gzip alone. */
function isGzip(encoding: string): boolean {
  const e = encoding.trim().toLowerCase();
  return e === 'gzip' || e === 'x-gzip';
}

/** The body decoded, {@link LARGER} past `limit` bytes, or null when it cannot be decoded. */
function decodeUpTo(
  res: Pick<HopResponse, 'body' | 'contentEncoding' | 'contentType'>,
  limit: number,
): { body: Buffer | null | typeof LARGER; flag?: string } {
  try {
    return decodeContent(res.body, res.contentEncoding, limit, res.contentType);
  } catch (e) {
    return { body: e instanceof TooLargeError ? LARGER : null };
  }
}
