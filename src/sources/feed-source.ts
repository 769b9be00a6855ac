/**
 * The `feed` source: its seeds are feed URLs (RSS 2.0, RSS 1.0/RDF, Atom, JSON Feed: read
 * leniently by `extract/feed.ts`), fetched again every round; each entry's page is fetched once
 * (again on a later round when the entry's `updated` date is later than its last fetch), its item
 * carrying the entry's title and dates under `data.entry`. Entries are fetched wherever they are
 * (not checked against the scope: a feed at /feed/ lists posts elsewhere). Entry pages are read as
 * the crawl reads them; their links are not followed by default.
 */
import * as z from 'zod';
import { pageOptionKeys, readPage } from './page-reader.js';
import { defineSource } from './source.js';

export const feedSource = defineSource<Record<string, unknown>>({
  name: 'feed',
  threadSafe: true,
  options: z.object(pageOptionKeys('none')),
  handle: (page, ctx) => readPage(page, ctx, 'feed'),
});
