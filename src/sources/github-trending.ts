/**
 * The built-in `github-trending` source: every round, the trending pages of the configured
 * languages and periods (`<web>/trending[/<language>]?since=`); the repositories each lists (only
 * its entries' heading links: see `extract/github-trending.ts`); and each repository's README,
 * once per source (`github-readmes.ts`). A normal page that lists nothing is a warning naming the
 * page (the layout may have changed), counted in status; nothing is collected from it.
 */
import type { z } from 'zod';
import { GithubTrendingOptionsSchema } from '../config/github-options.js';
import { extractTrending, trendingUrl, unrecognizedTrendingMessage } from '../extract/github-trending.js';
import { githubHooks, handleReadme, README_LABEL, readmeFollow } from './github-readmes.js';
import { defineSource, type RequestSpec } from './source.js';

/** Label of trending pages. */
export const TRENDING_LABEL = 'trending';

/** `github-trending` options, parsed. */
export type GithubTrendingOptions = z.output<typeof GithubTrendingOptionsSchema>;

/** The `github-trending` source (see the module comment). */
export const githubTrendingSource = defineSource<GithubTrendingOptions>({
  name: 'github-trending',
  options: GithubTrendingOptionsSchema,
  threadSafe: true,
  ...githubHooks,

  seeds(ctx) {
    const out: RequestSpec[] = [];
    for (const language of ctx.options.languages)
      for (const since of ctx.options.since)
        out.push({
          url: trendingUrl(ctx.options.github.web, language, since),
          label: TRENDING_LABEL,
          // Listings change every round; their READMEs are what is kept.
          store: false,
          userData: { language, since },
        });
    return out;
  },

  handle(page, ctx) {
    if (page.label === README_LABEL) return handleReadme(page, ctx);
    // a web page carries no token: a 401 there is the site's, not a rejected credential
    if (page.status === 401) throw new Error(`HTTP 401 from ${page.url}`);
    if (page.status !== 200 && page.status !== 203) return { data: { repos: 0 } };
    const { language, since } = (page.userData ?? {}) as { language?: string; since?: string };
    const trending = { language: language ?? null, since: since ?? null };
    const listed = extractTrending(page.text(), page.finalUrl, ctx.options.github.web);
    if (listed.kind === 'empty') return { data: { trending, repos: 0, empty: true } };
    if (listed.kind === 'unrecognized') {
      ctx.log.warn(unrecognizedTrendingMessage(page.finalUrl, listed.entries), { page: page.finalUrl });
      return { data: { trending, repos: 0, layoutChanged: true } };
    }
    const follow = listed.repos.map((r) =>
      readmeFollow(
        r,
        {
          position: r.position,
          page: r.page,
          stars: r.stars,
          forks: r.forks,
          starsInPeriod: r.starsInPeriod,
          period: r.period,
          language: r.language,
          description: r.description,
        },
        ctx.options,
      ),
    );
    return { data: { trending, repos: listed.repos.length, skipped: listed.skipped }, follow };
  },
});
