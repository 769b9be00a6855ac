/**
 * Tracking parameters: query parameters that marketing and analytics tools add to links
 * (`?utm_source=newsletter&fbclid=…`) and that change on every share, mail or fetch, so one
 * article would be a new URL each round. They never change what the server returns, so they are
 * removed in canonicalization (with the session ids: `session-ids.ts`), after the lists kept by
 * ClearURLs and Firefox's query stripping.
 */

/**
 * The parameter names removed, lowercase; a trailing `*` is a prefix. `ref` itself is not one
 * (GitHub's contents API and many sites use it for a branch or a section): add it with config
 * `trackingParams: [ref]` for a site where it only says where a click came from.
 */
export const TRACKING_PARAMS = [
  // Google Analytics / Urchin campaign tags, and Google's click ids
  'utm_*',
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  '_ga',
  '_gl',
  // Facebook / Instagram, Microsoft Ads, Yandex, Twitter/X, TikTok, LinkedIn
  'fbclid',
  'igshid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  // Mailchimp, HubSpot, Marketo, Vero, Olytics, Adobe
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  '__hstc',
  '__hssc',
  '__hsfp',
  'hsctatracking',
  'mkt_tok',
  'vero_id',
  'vero_conv',
  'oly_anon_id',
  'oly_enc_id',
  's_cid',
  // where a click came from, in the `ref_*` style
  'ref_src',
  'ref_url',
] as const;

/** Which query parameter names are tracking parameters: the built-in list, plus the configured ones. */
export class TrackingParams {
  private readonly exact = new Set<string>();
  private readonly prefixes: string[] = [];
  /** Names kept although listed or covered by a prefix. */
  private readonly kept: Set<string>;

  /**
   * @param extra more names (config `trackingParams`; a trailing `*` is a prefix), case-insensitive.
   * @param keep names kept although listed (`--keep-param`), case-insensitive; `utm_*` keeps the family.
   */
  constructor(extra: readonly string[] = [], keep: readonly string[] = []) {
    const kept = new Set(keep.map((k) => k.toLowerCase()));
    for (const raw of [...TRACKING_PARAMS, ...extra]) {
      const name = raw.toLowerCase();
      if (kept.has(name)) continue; // `utm_*` kept: the whole family
      if (name.endsWith('*')) this.prefixes.push(name.slice(0, -1));
      else this.exact.add(name);
    }
    this.kept = kept;
  }

  /** Whether `name` (as written in the query, not decoded) is a tracking parameter. */
  has(name: string): boolean {
    const n = name.toLowerCase();
    if (this.kept.has(n)) return false;
    if (this.exact.has(n)) return true;
    for (const p of this.prefixes) if (n.startsWith(p)) return true;
    return false;
  }
}
