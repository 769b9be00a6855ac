// Types of aeb-score.js for the TypeScript tests (the bench scripts are plain ESM, not compiled).

export declare const SHINGLE_TOKENS: number;

export declare function tokenize(text: string | null | undefined): string[];

export declare function shingles(tokens: readonly string[], n?: number): Map<string, number>;

export interface PageScore {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  exact: boolean;
  goldWords: number;
  predictedWords: number;
}

export interface CorpusScore {
  precision: number;
  recall: number;
  f1: number;
  accuracy: number;
  pages: Array<{ id: string } & PageScore>;
}

export declare function scorePage(gold: string, predicted: string): PageScore;

export declare function scoreCorpus(
  gold: Map<string, string> | Record<string, string>,
  predicted: Map<string, string | null> | Record<string, string | null>,
): CorpusScore;
