/**
 * The HTTP `Link` header (RFC 8288 §3): parsing its link-values, and finding the target of one
 * relation type (`rel="next"` for API pagination).
 */

/** One link-value: its target and its parameters. */
export interface LinkValue {
  /** Target URI reference, resolved against the base given to the parser (WHATWG URL). */
  url: string;
  /** Relation types from `rel`, lowercased (a `rel` may list several, space-separated). */
  rels: string[];
  /** All parameters, names lowercased, values unquoted; the first occurrence of a name wins. */
  params: Record<string, string>;
}

const WS = /[ \t]/;

/**
 * Parse a `Link` header field value (RFC 8288 §3): `<uri>; rel="next"; title="a, b", <uri2>; rel=last`.
 * Quoted strings may contain commas and `\`-escapes; unquoted values run to `;` or `,`. A
 * link-value whose target does not resolve against `base` is skipped; a malformed rest of the
 * header ends parsing (what was parsed so far is returned).
 * @param value the header value (several `Link` fields may be joined with `,`), or null/undefined.
 * @param base the URL the targets are relative to (the request URL).
 */
export function parseLinkHeader(value: string | null | undefined, base: string): LinkValue[] {
  const out: LinkValue[] = [];
  if (!value) return out;
  let i = 0;
  const n = value.length;
  const skipWs = (): void => {
    while (i < n && WS.test(value[i])) i++;
  };
  while (i < n) {
    skipWs();
    if (value[i] === ',') {
      i++;
      continue;
    }
    if (value[i] !== '<') return out;
    const close = value.indexOf('>', i + 1);
    if (close === -1) return out;
    const target = value.slice(i + 1, close).trim();
    i = close + 1;
    const params: Record<string, string> = {};
    for (;;) {
      skipWs();
      if (value[i] !== ';') break;
      i++;
      skipWs();
      let name = '';
      while (i < n && /[^=;,\s]/.test(value[i])) name += value[i++];
      skipWs();
      let v = '';
      if (value[i] === '=') {
        i++;
        skipWs();
        if (value[i] === '"') {
          i++;
          while (i < n && value[i] !== '"') {
            if (value[i] === '\\' && i + 1 < n) i++;
            v += value[i++];
          }
          i++; // closing quote
        } else {
          while (i < n && value[i] !== ';' && value[i] !== ',') v += value[i++];
          v = v.trim();
        }
      }
      const key = name.toLowerCase();
      if (key && params[key] === undefined) params[key] = v;
    }
    let url: string;
    try {
      url = new URL(target, base).href;
    } catch {
      continue;
    }
    const rels = (params.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    out.push({ url, rels, params });
  }
  return out;
}

/**
 * The target of the first link-value with relation type `rel` (case-insensitive), or null.
 * @param value a `Link` header value.
 * @param base the request URL (targets may be relative).
 */
export function linkTarget(value: string | null | undefined, base: string, rel: string): string | null {
  const want = rel.toLowerCase();
  for (const link of parseLinkHeader(value, base)) if (link.rels.includes(want)) return link.url;
  return null;
}
