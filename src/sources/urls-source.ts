/**
 * The `urls` source: a list of URLs to fetch, from a file (`urls: ./list.txt`, one URL a line,
 * `#` comments; relative to the config file, or to the current directory on the command line) or
 * inline (`urls: [...]`, or the seeds). Each URL once (dedup); each process of the worker type
 * takes the URLs it owns (by host, or by URL for one host: DESIGN §1 ownership), so together they
 * take every URL exactly once and a host's politeness stays in one process. Pages are read as the
 * crawl reads them, their links not followed by default.
 */
import * as z from 'zod';
import { UsageError } from '../config/usage-error.js';
import { pageOptionKeys, readPage } from './page-reader.js';
import { defineSource, type SourceContext } from './source.js';
import { inlineUrlList, readUrlList } from './url-list.js';

/** The whole list: the file or inline list of `urls`, then the configured seeds. */
function listOf(ctx: SourceContext): string[] {
  const urls = ctx.options.urls as string | string[] | undefined;
  const list =
    urls === undefined ? [] : typeof urls === 'string' ? readUrlList(urls) : inlineUrlList(urls, 'urls');
  const seen = new Set(list);
  for (const s of ctx.seeds) if (!seen.has(s)) list.push(s);
  if (list.length === 0) throw new UsageError('urls: no URLs (give urls: a file or a list, or seed URLs)');
  return list;
}

export const urlsSource = defineSource<Record<string, unknown>>({
  name: 'urls',
  threadSafe: true,
  options: z.object({
    /** A file of URLs (one a line, `#` comments), or a list of URLs. */
    urls: z
      .union([z.string().min(1), z.array(z.string())])
      .superRefine((v, check) => {
        // read here, when the options are parsed before anything starts: a bad list is a usage error
        try {
          if (typeof v === 'string') readUrlList(v);
          else inlineUrlList(v, 'urls');
        } catch (e) {
          check.addIssue({ code: 'custom', message: (e as Error).message });
        }
      })
      .optional(),
    ...pageOptionKeys('none'),
  }),
  /** The whole list: each process keeps the URLs it owns. */
  seeds: listOf,
  handle: (page, ctx) => readPage(page, ctx, 'page'),
  pathOptions: ['urls'],
});
