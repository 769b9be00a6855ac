/**
 * Block and challenge pages (issue 27 §13): the built-in rules recognise the common walls by
 * status, header and body markers in small bodies, leave real pages alone (a page with a CAPTCHA
 * widget, a login page asked for, Cloudflare's script on an ordinary page, a JSON refusal), and
 * config patterns add more.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BLOCK_RULES, BlockDetector, BodyWithin, LARGER } from '../../src/http/block-page.js';

const d = new BlockDetector();
const html = (body: string, status = 200, headers: Record<string, string> = {}, type = 'text/html') => ({
  status,
  headers,
  contentType: type,
  body: Buffer.from(body),
  contentEncoding: null,
  encoded: false,
});
const URL_ = 'https://news.example/2024/05/story';
const CF =
  '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>' +
  '<script>window._cf_chl_opt={cvId:"3"}</script><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>';

describe('BlockDetector', () => {
  it('recognises bot challenges with a refusal status, with 200, and by the cf-mitigated header', () => {
    expect(d.judge(URL_, html(CF, 503))).toBe('bot-challenge');
    expect(d.judge(URL_, html(CF, 403))).toBe('bot-challenge');
    expect(d.judge(URL_, html(CF, 200))).toBe('bot-challenge');
    expect(d.judge(URL_, html('<p>x</p>', 403, { 'cf-mitigated': 'challenge' }))).toBe('bot-challenge');
    const dd = '<html><script src="https://ct.captcha-delivery.com/c.js"></script></html>';
    expect(d.judge(URL_, html(dd, 403))).toBe('bot-challenge');
  });

  it('recognises CAPTCHA and "verify you are human" pages, a JS cookie challenge, a denial, a login wall', () => {
    const captcha =
      '<title>Attention</title><h1>Please verify you are human</h1><div class="g-recaptcha"></div>';
    expect(d.judge(URL_, html(captcha))).toBe('captcha');
    expect(d.judge(URL_, html('<h1>Are you a robot?</h1>', 429))).toBe('captcha');
    const js = '<html><script>document.cookie="t=1;path=/";location.reload();</script></html>';
    expect(d.judge(URL_, html(js))).toBe('js-challenge');
    expect(d.judge(URL_, html('<h1>Access Denied</h1>Reference #18.1', 403))).toBe('access-denied');
    const wall = '<title>Sign in - News</title><form><input name=u><input type="password" name=p></form>';
    expect(d.judge(URL_, html(wall))).toBe('login-wall');
  });

  it('leaves real pages alone', () => {
    // a contact form with a CAPTCHA widget
    expect(
      d.judge(URL_, html('<title>Contact</title><form><div class="g-recaptcha"></div></form>')),
    ).toBeNull();
    // Cloudflare's script on an ordinary page
    const page =
      '<title>Story</title><p>text</p><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script>';
    expect(d.judge(URL_, html(page))).toBeNull();
    // the login page itself, asked for
    const login = '<title>Sign in</title><input type="password">';
    expect(d.judge('https://news.example/login', html(login))).toBeNull();
    // "access denied" in an ordinary 200 page (documentation about it)
    expect(d.judge(URL_, html('<h1>Fixing access denied errors</h1>'))).toBeNull();
    // a plain 403 without markers, a JSON refusal, a plain-text file quoting a marker, a redirect
    expect(d.judge(URL_, html('<h1>Forbidden</h1>', 403))).toBeNull();
    expect(d.judge(URL_, html('{"message":"verify you are human"}', 403, {}, 'application/json'))).toBeNull();
    expect(d.judge(URL_, html('Are you a robot? A poem.', 200, {}, 'text/plain'))).toBeNull();
    expect(d.judge(URL_, html(CF, 302))).toBeNull();
    // a large page that mentions the phrase in passing
    const big = `<title>Essay</title><p>${'word '.repeat(20_000)}</p><p>are you a robot?</p>`;
    expect(d.judge(URL_, html(big))).toBeNull();
  });

  it('reads a compressed body', () => {
    const res = {
      ...html(''),
      body: gzipSync(Buffer.from(CF)),
      contentEncoding: 'gzip',
      encoded: true,
      status: 503,
    };
    expect(d.judge(URL_, res)).toBe('bot-challenge');
  });

  it('takes more patterns from config, and names a bad one', () => {
    const own = new BlockDetector(['our systems have detected']);
    expect(own.judge(URL_, html('<p>Our systems have detected unusual activity</p>'))).toBe(
      'blockPatterns[0]',
    );
    expect(() => new BlockDetector(['a', '('])).toThrow(/blockPatterns\[1\]: invalid regular expression/);
  });
});

describe('hints: a page without any rule hint is not matched against the rules', () => {
  /** The top-level alternatives of a pattern's source (splits on `|` outside groups and escapes). */
  function alternatives(source: string): string[] {
    const out: string[] = [];
    let depth = 0;
    let cur = '';
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (c === '\\') {
        cur += c + source[++i];
        continue;
      }
      if (c === '(') depth++;
      if (c === ')') depth--;
      if (c === '|' && depth === 0) {
        out.push(cur);
        cur = '';
      } else cur += c;
    }
    return [...out, cur];
  }
  /** The text an alternative surely contains: optional groups dropped, escapes undone, lowercase. */
  const required = (alt: string) =>
    alt
      .replace(/\(\?:[^()]*\)\?/g, '')
      .replace(/\\(.)/g, '$1')
      .toLowerCase();

  it('every alternative of every built-in body rule holds one of its hints', () => {
    for (const rule of BLOCK_RULES.filter((r) => r.body !== undefined)) {
      expect(rule.hints, rule.name).toBeDefined();
      for (const alt of alternatives((rule.body as RegExp).source)) {
        const text = required(alt);
        expect(
          rule.hints?.some((h) => text.includes(h)),
          `${rule.name}: "${alt}" holds none of ${rule.hints}`,
        ).toBe(true);
      }
    }
  });

  it('judges as before: hints in any case find the wall, a hint alone is no wall, a config pattern is always tried', () => {
    expect(d.judge(URL_, html('<title>Attention Required! | Cloudflare</title><p>x</p>'))).toBe('captcha');
    expect(d.judge(URL_, html('<p>PLEASE VERIFY YOU ARE A HUMAN</p>'))).toBe('captcha');
    expect(d.judge(URL_, html('<p>A robot arm and a human hand.</p>'))).toBeNull();
    const own = new BlockDetector(['our maintenance page']);
    expect(own.judge(URL_, html('<h1>Our Maintenance Page</h1>'))).toBe('blockPatterns[0]');
  });
});

describe('BodyWithin: a body decoded only as far as a rule looks', () => {
  const gz = (text: string) => ({
    body: gzipSync(text),
    contentEncoding: 'gzip',
    encoded: true,
    contentType: 'text/html',
  });
  const page = (bytes: number) =>
    `<html><body>${'<p>doc text</p>'.repeat(Math.ceil(bytes / 14))}</body></html>`;

  it('says a large gzip page is over a 64 KiB bound without inflating it whole (a stream cut after 100 KB is not read to its end)', () => {
    const whole = gzipSync(page(400 * 1024));
    const cut = { ...gz(''), body: whole.subarray(0, Math.floor(whole.length / 2)) };
    expect(new BodyWithin(cut).upTo(64 * 1024)).toBe(LARGER);
    // read whole, the same cut stream is corrupt
    expect(new BodyWithin(cut).upTo(4 * 1024 * 1024)).toBeNull();
  });

  it("reads a gzip body's size from its trailer: one that declares more than the bound is not inflated", () => {
    // A 15 KB page whose trailer says 100,000 bytes: inflated, it would fail the length check.
    const lying = gz(`<p>${Array.from({ length: 3000 }, (_, i) => (i * 7919) % 10007).join(' ')}</p>`);
    lying.body = Buffer.from(lying.body);
    lying.body.writeUInt32LE(100_000, lying.body.length - 4);
    expect(new BodyWithin(lying).upTo(64 * 1024)).toBe(LARGER);
    expect(new BodyWithin(lying).upTo(1024 * 1024)).toBeNull();
    // Two members: the last one's trailer (a few bytes) says too little, so the body is inflated.
    const two = { ...gz(''), body: Buffer.concat([gzipSync(page(100 * 1024)), gzipSync('<p>end</p>')]) };
    expect(new BodyWithin(two).upTo(64 * 1024)).toBe(LARGER);
    expect((new BodyWithin(two).upTo(1024 * 1024) as Buffer).length).toBe(page(100 * 1024).length + 10);
  });

  it('gives the decoded bytes within the bound, decodes again when a later rule asks for more', () => {
    const small = new BodyWithin(gz(page(2000)));
    expect((small.upTo(64 * 1024) as Buffer).toString()).toBe(page(2000));
    const mid = new BodyWithin(gz(page(100 * 1024)));
    expect(mid.upTo(64 * 1024)).toBe(LARGER);
    expect(mid.upTo(4096)).toBe(LARGER);
    expect((mid.upTo(1024 * 1024) as Buffer).length).toBe(page(100 * 1024).length);
  });

  it('compares an unencoded body by its length', () => {
    const raw = {
      body: Buffer.from('x'.repeat(5000)),
      contentEncoding: null,
      encoded: false,
      contentType: 'text/html',
    };
    expect(new BodyWithin(raw).upTo(4096)).toBe(LARGER);
    expect((new BodyWithin(raw).upTo(8192) as Buffer).length).toBe(5000);
  });

  it('hands on the whole body a check inflated (the page processor need not inflate it again), and nothing else', () => {
    // A 200 gzip page within the rules' 64 KiB: judged by inflating it whole.
    const small = new BodyWithin(gz(page(2000)));
    expect(d.judge(URL_, { ...gz(page(2000)), status: 200, headers: {} }, small)).toBeNull();
    expect(small.whole()?.toString()).toBe(page(2000));
    // Over the bound: only part was inflated.
    const large = new BodyWithin(gz(page(100 * 1024)));
    expect(d.judge(URL_, { ...gz(page(100 * 1024)), status: 200, headers: {} }, large)).toBeNull();
    expect(large.whole()).toBeNull();
    // No coding: nothing was inflated; a coding claimed but absent is left to the page processor's flag.
    const plain = { ...html(page(2000)), encoded: true };
    const none = new BodyWithin(plain);
    expect(d.judge(URL_, plain, none)).toBeNull();
    expect(none.whole()).toBeNull();
    const claimed = { ...gz(''), body: Buffer.from(page(2000)) };
    const notEncoded = new BodyWithin(claimed);
    expect(d.judge(URL_, { ...claimed, status: 200, headers: {} }, notEncoded)).toBeNull();
    expect(notEncoded.whole()).toBeNull();
    // Not looked at (not HTML): not inflated.
    const json = new BodyWithin({ ...gz('{"a":1}'), contentType: 'application/json' });
    expect(
      d.judge(URL_, { ...gz('{"a":1}'), contentType: 'application/json', status: 200, headers: {} }, json),
    ).toBeNull();
    expect(json.whole()).toBeNull();
  });
});
