/**
 * The calendar-trap feedback: pages of one date-like URL shape (digits generalised, a year and
 * month in it: `calendarShape` in `url/shape-budget.ts`) that keep coming back as near-duplicates
 * of the previous one — month after month of an empty calendar — freeze that shape in the scope,
 * so no new URL of it is followed. An archive whose pages of one shape carry distinct content
 * never builds the streak; numbered pages that are not dates are not watched.
 */
import { sketchDifference } from '../extract/text-sketch.js';
import { calendarShape } from '../url/shape-budget.js';

/**
 * - `maxDifference` 4: two pages whose text sketches differ in at most 4 words (of the bottom-128
 *   sample, digits generalised) are near-duplicates: an empty month differs from the next by its
 *   name, an archive month by its posts' titles and text;
 * - `streak` 5 consecutive near-duplicate pages of one shape freeze it (a real site has distinct
 *   pages well before five empty ones in a row);
 * - `trackedShapes` 4096 shapes remembered (their last sketch, ≤ 512 bytes each); the oldest are
 *   forgotten past it.
 */
export const NEAR_DUPLICATE_DEFAULTS = { maxDifference: 4, streak: 5, trackedShapes: 4096 } as const;

/** Where a frozen shape is applied (the crawl's Scope). */
export interface ShapeFreezer {
  /** @returns whether the shape of `url` was newly frozen. */
  freezeShape(url: string): boolean;
}

interface ShapeState {
  last: readonly number[];
  streak: number;
}

/** Watches consecutive pages per URL shape and freezes a shape after a near-duplicate streak. */
export class NearDuplicateWatch {
  private readonly shapes = new Map<string, ShapeState>();

  constructor(
    private readonly scope: ShapeFreezer,
    private readonly onFrozen: (shape: string, url: string) => void = () => {},
    private readonly opts: {
      maxDifference: number;
      streak: number;
      trackedShapes: number;
    } = NEAR_DUPLICATE_DEFAULTS,
  ) {}

  /**
   * A page of `url` was parsed with text sketch `sketch`.
   * @returns true when this page completed a streak and froze its shape.
   */
  observe(url: string, sketch: readonly number[]): boolean {
    const shape = calendarShape(url);
    if (shape === null) return false;
    const s = this.shapes.get(shape);
    if (s === undefined) {
      if (this.shapes.size >= this.opts.trackedShapes)
        this.shapes.delete(this.shapes.keys().next().value as string);
      this.shapes.set(shape, { last: sketch, streak: 0 });
      return false;
    }
    s.streak = sketchDifference(s.last, sketch) <= this.opts.maxDifference ? s.streak + 1 : 0;
    s.last = sketch;
    if (s.streak < this.opts.streak || !this.scope.freezeShape(url)) return false;
    this.onFrozen(shape, url);
    return true;
  }
}
