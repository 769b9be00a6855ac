/**
 * A source for a paginated JSON API shaped like Hacker News's: `GET {api}/stories?page=N` lists
 * story ids and links to the next page; `GET {api}/item/{id}.json` is one story.
 *
 *   collector crawl --source examples/sources/hn-api.mjs --source-option api=https://api.example.org/v0
 *
 * or, in collector.yaml:
 *
 *   workers:
 *     - source: ./sources/hn-api.mjs     # relative to the config file
 *       processes: 2
 *       api: https://api.example.org/v0  # this source's own options, beside the common keys
 *       interval: 10m                    # the list pages are fetched again every round
 *
 * Its requests are API calls, which robots.txt does not govern (`robots: false`); each says
 * `Accept: application/json`. Labels route the answers back, userData carries the page number
 * and rank to the items. A token in HN_API_TOKEN is sent as `Authorization: Bearer …` by
 * `authorize()`, at send time only: it is never written to the state, the items or the logs.
 */
import { defineSource } from 'web-collector';
import { z } from 'zod';

const JSON_ONLY = { accept: 'application/json' };

/** A page of the story list: fetched again in every round (new stories appear there). */
function listPage(url, page) {
  return { url, label: 'list', headers: JSON_ONLY, robots: false, everyRound: true, userData: { page } };
}

export default defineSource({
  name: 'hn-api',
  // handle() keeps no state: it runs in the page thread, off the fetch loop.
  threadSafe: true,
  options: z.object({
    /** Base URL of the API, without a trailing slash. */
    api: z.url(),
    /** Pages of the story list to follow (not `maxPages`: that common key counts every URL). */
    listPages: z.number().int().positive().default(10),
  }),

  seeds: (ctx) => [listPage(`${ctx.options.api}/stories?page=1`, 1)],

  authorize: () => {
    const token = process.env.HN_API_TOKEN;
    return token ? { authorization: `Bearer ${token}` } : undefined;
  },

  handle(page, ctx) {
    if (page.label === 'list') {
      const { stories, next } = page.json();
      const n = page.userData.page;
      // Relative URLs are resolved against the page: item/1.json, stories?page=2.
      const follow = stories.map((id, i) => ({
        url: `item/${id}.json`,
        label: 'item',
        headers: JSON_ONLY,
        robots: false,
        userData: { page: n, rank: i + 1 },
      }));
      if (next && n < ctx.options.listPages) follow.push(listPage(next, n + 1));
      return { data: { page: n, stories: stories.length }, follow };
    }
    const story = page.json();
    if (!story.title) ctx.log.warn('story without a title', { id: story.id });
    return {
      title: story.title ?? null,
      data: { id: story.id, by: story.by, score: story.score },
      // The page a story links to is crawled like any link: scope, robots.txt and politeness apply.
      follow: story.url ? [story.url] : [],
      // A text story is stored as Markdown rather than as the JSON it came in.
      file: story.text ? { body: story.text, extension: 'md' } : undefined,
    };
  },
});
