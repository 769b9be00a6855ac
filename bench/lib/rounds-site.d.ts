// Types of rounds-site.js for the TypeScript tests (the bench scripts are plain ESM, not compiled).

/** One logged request: its path (query included), arrival (epoch ms), status, wire bytes (answer, request), validators sent. */
export interface RoundsSiteRequest {
  path: string;
  at: number;
  status: number;
  bytes: number;
  requestBytes: number;
  ifNoneMatch: string | string[] | null;
  ifModifiedSince: string | null;
}

export interface RoundsSite {
  origin: string;
  log: RoundsSiteRequest[];
  change(path: string): void;
  requestsFor(prefix: string): RoundsSiteRequest[];
  close(): Promise<void>;
}

export declare function startRoundsSite(opts?: {
  articles?: number;
  pageBytes?: number;
  summaryBytes?: number;
  challenges?: number;
}): Promise<RoundsSite>;

export declare function roundsByHub(
  log: readonly RoundsSiteRequest[],
  groups: ReadonlyArray<{
    marker: string | ((e: RoundsSiteRequest) => boolean);
    paths: string[] | ((e: RoundsSiteRequest) => boolean);
  }>,
  slackMs: number,
): Array<{ requests: RoundsSiteRequest[]; bytes: number; requestBytes: number }>;
