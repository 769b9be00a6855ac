// Types of rounds-site.js for the TypeScript tests (the bench scripts are plain ESM, not compiled).

/** One logged request: its path (query included), arrival (epoch ms), status, wire bytes, validators sent. */
export interface RoundsSiteRequest {
  path: string;
  at: number;
  status: number;
  bytes: number;
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
  groups: ReadonlyArray<{ marker: string; paths: string[] }>,
  slackMs: number,
): Array<{ requests: RoundsSiteRequest[]; bytes: number }>;
