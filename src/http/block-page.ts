/**
 * Block and challenge pages: answers that are not the page asked for but a wall put in front of
 * it — a bot-challenge interstitial (Cloudflare's "Just a moment...", DataDome, PerimeterX,
 * Imperva), a CAPTCHA or "verify you are human" page, a JavaScript cookie challenge, a login
 * wall — often with status 403, 429 or 503, sometimes 200. Recognised by a small rule set (the
 * status, a header, markers in a small body; {@link BLOCK_RULES}) that config `blockPatterns`
 * extends. Such an answer is an error item of kind `blocked`, never a page's content; its host is
 * slowed down as for a 429 and the URL tried again later.
 */
import { decodeContent } from './decompress.js';
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
  /** Applies only to bodies of at most this many bytes. */
  maxBytes?: number;
  /** Not when the requested URL matches (a login page asked for is not a login wall). */
  unlessUrl?: RegExp;
}

/** Statuses a server refuses a bot with. */
const REFUSALS = [403, 429, 503] as const;

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
  },
  // The same interstitials served with 200: only their own markers, not Cloudflare's page script.
  {
    name: 'bot-challenge',
    body: /<title>\s*just a moment\.\.\.\s*<\/title>|_cf_chl_opt|cf-browser-verification|captcha-delivery\.com|px-captcha/i,
    maxBytes: SMALL,
  },
  {
    name: 'captcha',
    body: /verify (?:that )?you(?:'re| are) (?:a )?human|are you a robot|i'?m not a robot|unusual traffic from your (?:computer|network)|pardon our interruption|request unsuccessful\. incapsula|attention required! \| cloudflare/i,
    maxBytes: SMALL,
  },
  {
    name: 'access-denied',
    statuses: REFUSALS,
    body: /access denied|you have been blocked|request blocked|automated (?:access|requests|queries)/i,
    maxBytes: SMALL,
  },
  // A tiny page whose only work is to set a cookie and reload: a JavaScript challenge.
  { name: 'js-challenge', body: /document\.cookie[\s\S]*location\.(?:reload|replace|href)/i, maxBytes: 4096 },
  // A sign-in form served for a page that is not one: titled so, or asking to sign in to go on.
  {
    name: 'login-wall',
    body: /<title>[^<]*(?:sign|log) ?in\b[^<]*<\/title>[\s\S]*type=["']?password|(?:sign|log) ?in to (?:continue|view|read)[\s\S]*type=["']?password/i,
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
  }

  /**
   * Whether `res`, the answer to `url`, is a block page.
   * @returns the name of the rule that holds (`captcha`, `bot-challenge`, ...), or null.
   */
  judge(
    url: string,
    res: Pick<HopResponse, 'status' | 'headers' | 'contentType' | 'body' | 'contentEncoding' | 'encoded'>,
  ): string | null {
    if (res.status >= 300 && res.status < 400) return null;
    // Decoded when a body rule is first met; read as text only when a rule's size bound lets it
    // apply (most pages are over the bounds of the rules for a 200).
    let body: Buffer | null | undefined;
    let text: string | undefined;
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
        if (body === undefined) body = decoded(res);
        if (body === null) return null;
        if (rule.maxBytes !== undefined && body.length > rule.maxBytes) continue;
        text ??= body.subarray(0, BLOCK_SCAN_BYTES).toString('latin1');
        if (!rule.body.test(text)) continue;
      }
      return rule.name;
    }
    return null;
  }
}

/** The body without its Content-Encoding (as much as is looked at), or null when it cannot be decoded. */
function decoded(
  res: Pick<HopResponse, 'body' | 'contentEncoding' | 'encoded' | 'contentType'>,
): Buffer | null {
  if (!res.encoded || res.contentEncoding === null) return res.body;
  try {
    // A larger body is cut at the limit: its size is then "over the small rules' bound" anyway.
    return decodeContent(res.body, res.contentEncoding, BLOCK_SCAN_BYTES * 4, res.contentType).body;
  } catch {
    return null;
  }
}
