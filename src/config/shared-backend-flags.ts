/**
 * `--backend` and `--crawl-id` of `collector run`: checked as the config file's `backend:` and
 * `crawlId:` are, and taking their place.
 */
import { CrawlOptionsSchema } from './crawl-options.js';
import { UsageError } from './usage-error.js';

/**
 * The config keys the flags set (only those given).
 * @throws UsageError naming the flag, for a value the config file would refuse too.
 */
export function sharedBackendFlags(flags: { backend?: string; crawlId?: string }): {
  backend?: string;
  crawlId?: string;
} {
  const out: { backend?: string; crawlId?: string } = {};
  if (flags.backend !== undefined) {
    const r = CrawlOptionsSchema.shape.backend.safeParse(flags.backend);
    if (!r.success) throw new UsageError(`--backend ${flags.backend}: ${r.error.issues[0]?.message}`);
    out.backend = r.data;
  }
  if (flags.crawlId !== undefined) {
    const r = CrawlOptionsSchema.shape.crawlId.safeParse(flags.crawlId);
    if (!r.success) throw new UsageError(`--crawl-id ${flags.crawlId}: ${r.error.issues[0]?.message}`);
    out.crawlId = r.data;
  }
  return out;
}
