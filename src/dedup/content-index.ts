/**
 * The content-dedup index of one worker: which item line first stored a body with a given hash.
 *
 * It replaces a `Map<hex16, url>` (~200 bytes of heap per fetched page) with:
 * - one open-addressing table over a single Uint32Array of (hi, lo, value) triples: the 64-bit
 *   key is the first 8 bytes of the body's SHA-256, the value is the 0-based line number
 *   ("ordinal") of the original item in this worker's items file. 12 bytes per slot, at most
 *   3/4 full, grown by 1.4× (not 2×), so 16–22.4 bytes per entry, about 19 on average;
 * - a sparse line index: the byte offset of every 256th line of the items file (Float64Array,
 *   8 bytes per 256 lines), so line n is found by reading forward from line floor(n/256)·256;
 * - a ring with the URLs of the most recent 2048 lines (those not yet flushed to disk).
 *
 * The URL of an original is needed only when a duplicate is found (rare): it comes from the ring,
 * or is read back from the items file (a bounded, asynchronous read of at most 256 lines). A key
 * claimed by a page whose item line is not written yet keeps its URL in a small map until
 * {@link ContentIndex.commit} (bounded by the requests and body writes in flight).
 *
 * The index does not write the items file; its owner reports every line written, in order, with
 * {@link ContentIndex.appendLine} (and on resume, every line read back).
 */
import fs from 'node:fs/promises';
import type { ContentDedup, ContentKey, ContentMatch } from './content-dedup.js';

export type { ContentKey, ContentMatch } from './content-dedup.js';

/** Largest fill of the table before it grows. */
export const MAX_LOAD = 0.75;
/** Growth factor of the table: after growing it is 0.75/1.4 ≈ 54% full. */
export const GROWTH = 1.4;
/** Lines of the items file between two entries of the sparse line index. */
export const LINE_STRIDE = 256;
/** URLs of recent lines kept in memory by default. */
export const RING_SIZE = 2048;
/** Bytes read from the items file per read call when resolving a line. */
const READ_CHUNK = 64 * 1024;
/** Stored value of a key claimed by a page whose item line is not written yet. */
const PENDING = 0xffffffff;
/** Largest ordinal the table can hold (values are stored +1; 0 = empty slot, PENDING reserved). */
export const MAX_ORDINAL = 0xfffffffd;

/**
 * The key of a body from its raw SHA-256 digest.
 * @param digest at least 8 bytes (a SHA-256 digest is 32).
 * @throws RangeError when `digest` is shorter than 8 bytes.
 */
export function contentKey(digest: Uint8Array): ContentKey {
  if (digest.length < 8) throw new RangeError(`content digest too short: ${digest.length} bytes`);
  const v = new DataView(digest.buffer, digest.byteOffset, 8);
  return { hi: v.getUint32(0), lo: v.getUint32(4) };
}

/**
 * The key of a body from its hex SHA-256 (an item's `sha256` field): the same 64 bits as
 * {@link contentKey} of the digest.
 * @returns null when `hex` does not start with 16 hex digits.
 */
export function contentKeyFromHex(hex: string): ContentKey | null {
  if (!/^[0-9a-fA-F]{16}/.test(hex)) return null;
  return { hi: Number.parseInt(hex.slice(0, 8), 16), lo: Number.parseInt(hex.slice(8, 16), 16) };
}

/** Settings of a {@link ContentIndex}. */
export interface ContentIndexOptions {
  /** This worker's items file (`<out>/items/<worker-id>.jsonl`), read to resolve old originals. */
  itemsPath: string;
  /**
   * Make every item line reported so far reach the items file (the journal's flush). Awaited once
   * when a line is not on disk yet. Without it such a line resolves to null at once.
   */
  flush?: () => Promise<void>;
  /** Entries expected; the table is sized to hold them without growing. Default 1024. */
  initialCapacity?: number;
  /** URLs of the most recent lines kept in memory. Default {@link RING_SIZE}. */
  ringSize?: number;
}

/** The content-dedup index of one worker (see the module comment): the embedded {@link ContentDedup}. */
export class ContentIndex implements ContentDedup {
  /** (hi, lo, value) per slot; value = ordinal + 1, 0 = empty, PENDING = claimed. */
  private slots: Uint32Array;
  private cap: number;
  private count = 0;
  private limit: number;
  /** Claimed keys (`hi:lo`) → URL of the page that claimed them, until commit. */
  private readonly pending = new Map<string, string>();
  /** Byte offset of line b·LINE_STRIDE, for b < blocks. */
  private sparse = new Float64Array(64);
  private blocks = 0;
  private nextLine = 0;
  private endOffset = 0;
  private readonly ring: Array<string | undefined>;
  private readonly itemsPath: string;
  private readonly flush: (() => Promise<void>) | undefined;

  /** @param opts see {@link ContentIndexOptions}. */
  constructor(opts: ContentIndexOptions) {
    this.itemsPath = opts.itemsPath;
    this.flush = opts.flush;
    this.ring = new Array(Math.max(1, opts.ringSize ?? RING_SIZE));
    let cap = 16;
    while (cap * MAX_LOAD < (opts.initialCapacity ?? 1024)) cap = Math.ceil(cap * GROWTH);
    this.cap = cap;
    this.slots = new Uint32Array(cap * 3);
    this.limit = Math.floor(cap * MAX_LOAD);
  }

  /** Keys in the index (committed and claimed). */
  get size(): number {
    return this.count;
  }

  /** Lines reported with {@link appendLine}: the ordinal the next line gets. */
  get lines(): number {
    return this.nextLine;
  }

  /** Bytes of the items file covered by the reported lines (the offset of the next line). */
  get bytes(): number {
    return this.endOffset;
  }

  /** Bytes of the table alone (12 per slot). */
  get tableByteLength(): number {
    return this.slots.byteLength;
  }

  /**
   * Bytes held by the typed arrays (table + sparse line index) plus the ring's slots (8 bytes
   * each); not counted: the URL strings in the ring and in pending claims.
   */
  get byteLength(): number {
    return this.slots.byteLength + this.sparse.byteLength + this.ring.length * 8;
  }

  /**
   * Record the next line of the items file, in the order the lines are written.
   * @param bytes the line's length in UTF-8 bytes, newline included.
   * @param url the item's `url`, kept in the ring of recent lines (omit when unknown).
   * @returns the line's ordinal (0-based line number).
   */
  appendLine(bytes: number, url?: string): number {
    const n = this.nextLine++;
    if (n % LINE_STRIDE === 0) {
      if (this.blocks === this.sparse.length) {
        const grown = new Float64Array(this.sparse.length * 2);
        grown.set(this.sparse);
        this.sparse = grown;
      }
      this.sparse[this.blocks++] = this.endOffset;
    }
    this.endOffset += bytes;
    this.ring[n % this.ring.length] = url;
    return n;
  }

  /**
   * Byte offset where reading for line `ordinal` starts: the offset of line
   * floor(ordinal / 256) · 256.
   * @throws RangeError when the line was not reported.
   */
  blockOffset(ordinal: number): number {
    if (!(ordinal >= 0 && ordinal < this.nextLine)) throw new RangeError(`no line ${ordinal}`);
    return this.sparse[Math.floor(ordinal / LINE_STRIDE)];
  }

  /**
   * The URL of a recent line from the ring, without I/O.
   * @returns undefined when the line is older than the ring or its URL was not given.
   */
  recentUrl(ordinal: number): string | undefined {
    if (ordinal < 0 || ordinal >= this.nextLine || ordinal < this.nextLine - this.ring.length)
      return undefined;
    return this.ring[ordinal % this.ring.length];
  }

  /**
   * Look a body up.
   * @returns null when the key is new; otherwise the original's URL when it is known in memory
   *   (a pending claim or a line in the ring), else its ordinal.
   */
  find(key: ContentKey): ContentMatch | null {
    const i = this.slotOf(key.hi >>> 0, key.lo >>> 0);
    const v = this.slots[i * 3 + 2];
    if (v === 0) return null;
    if (v === PENDING) return { url: this.pending.get(pendingKey(key)) ?? '' };
    const ordinal = v - 1;
    const url = this.recentUrl(ordinal);
    return url !== undefined ? { url } : { ordinal };
  }

  /**
   * Claim a new key for a page whose item line is not written yet; {@link find} answers with
   * `url` until {@link commit} sets the line.
   * @returns false (and changes nothing) when the key is already in the index.
   */
  claim(key: ContentKey, url: string): boolean {
    if (!this.insert(key.hi >>> 0, key.lo >>> 0, PENDING)) return false;
    this.pending.set(pendingKey(key), url);
    return true;
  }

  /**
   * Set the items-file line of a key claimed with {@link claim} (or add it when absent).
   * @throws RangeError when `ordinal` is not an integer in 0..MAX_ORDINAL.
   */
  commit(key: ContentKey, ordinal: number): void {
    checkOrdinal(ordinal);
    const hi = key.hi >>> 0;
    const lo = key.lo >>> 0;
    const i = this.slotOf(hi, lo);
    if (this.slots[i * 3 + 2] === 0) this.insert(hi, lo, ordinal + 1);
    else this.slots[i * 3 + 2] = ordinal + 1;
    this.pending.delete(pendingKey(key));
  }

  /**
   * Forget a key claimed with {@link claim} whose body could not be stored, so that a later copy
   * of the body is stored as the original instead of pointing at a URL with no file. Removal
   * keeps the linear-probing invariant (backward-shift deletion, Knuth 6.4 Algorithm R).
   */
  release(key: ContentKey): void {
    const hi = key.hi >>> 0;
    const lo = key.lo >>> 0;
    const s = this.slots;
    const cap = this.cap;
    let i = this.slotOf(hi, lo);
    if (s[i * 3 + 2] === 0) return;
    this.pending.delete(pendingKey(key));
    let j = i;
    for (;;) {
      s[i * 3 + 2] = 0;
      for (;;) {
        j = j + 1 === cap ? 0 : j + 1;
        if (s[j * 3 + 2] === 0) {
          this.count--;
          return;
        }
        const home = ((s[j * 3 + 1] ^ Math.imul(s[j * 3], 0x9e3779b1)) >>> 0) % cap;
        // The entry at j may fill the hole at i unless its home lies cyclically in (i, j].
        const between = i <= j ? home > i && home <= j : home > i || home <= j;
        if (!between) break;
      }
      s[i * 3] = s[j * 3];
      s[i * 3 + 1] = s[j * 3 + 1];
      s[i * 3 + 2] = s[j * 3 + 2];
      i = j;
    }
  }

  /**
   * Add a key whose original is line `ordinal` (rebuilding the index on resume).
   * @returns false (and keeps the first original) when the key is already in the index.
   * @throws RangeError when `ordinal` is not an integer in 0..MAX_ORDINAL.
   */
  add(key: ContentKey, ordinal: number): boolean {
    checkOrdinal(ordinal);
    return this.insert(key.hi >>> 0, key.lo >>> 0, ordinal + 1);
  }

  /**
   * The `url` of item line `ordinal`: from the ring, else read from the items file (from the
   * sparse offset of its block, at most 256 lines). A line not on disk yet (flush lagging) is
   * tried again once after awaiting `flush`.
   * @param sha256 when given, the line read from disk must have this `sha256` (guards against an
   *   items file changed behind the index's back).
   * @returns the URL, or null when the line cannot be found or read, is not a JSON object with a
   *   string `url`, or has another `sha256`. Never rejects.
   */
  async resolveUrl(ordinal: number, sha256?: string): Promise<string | null> {
    const recent = this.recentUrl(ordinal);
    if (recent !== undefined) return recent;
    if (!(Number.isInteger(ordinal) && ordinal >= 0 && ordinal < this.nextLine)) return null;
    try {
      let line = await this.readLine(ordinal);
      if (line === undefined && this.flush !== undefined) {
        await this.flush();
        line = await this.readLine(ordinal);
      }
      if (line === undefined) return null;
      const item = JSON.parse(line) as unknown;
      if (typeof item !== 'object' || item === null) return null;
      const { url, sha256: sha } = item as { url?: unknown; sha256?: unknown };
      if (typeof url !== 'string') return null;
      if (sha256 !== undefined && sha !== sha256) return null;
      return url;
    } catch {
      return null;
    }
  }

  /**
   * Read line `ordinal` (without its newline) from the items file.
   * @returns undefined when the file does not hold the whole line yet.
   * @throws on I/O errors other than a missing file.
   */
  private async readLine(ordinal: number): Promise<string | undefined> {
    const block = Math.floor(ordinal / LINE_STRIDE);
    let pos = this.sparse[block];
    const end = block + 1 < this.blocks ? this.sparse[block + 1] : this.endOffset;
    let skip = ordinal - block * LINE_STRIDE;
    let fh: fs.FileHandle;
    try {
      fh = await fs.open(this.itemsPath, 'r');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    try {
      const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(READ_CHUNK, end - pos)));
      const parts: Buffer[] = [];
      while (pos < end) {
        const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, end - pos), pos);
        if (bytesRead === 0) return undefined;
        const data = chunk.subarray(0, bytesRead);
        let i = 0;
        while (skip > 0) {
          const nl = data.indexOf(0x0a, i);
          if (nl < 0) {
            i = bytesRead;
            break;
          }
          i = nl + 1;
          skip--;
        }
        if (skip === 0) {
          const nl = data.indexOf(0x0a, i);
          if (nl >= 0) {
            parts.push(data.subarray(i, nl));
            return Buffer.concat(parts).toString('utf8');
          }
          parts.push(Buffer.from(data.subarray(i)));
        }
        pos += bytesRead;
      }
      return undefined;
    } finally {
      await fh.close();
    }
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private slotOf(hi: number, lo: number): number {
    const slots = this.slots;
    const cap = this.cap;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0;
    i %= cap;
    for (;;) {
      const v = slots[i * 3 + 2];
      if (v === 0 || (slots[i * 3] === hi && slots[i * 3 + 1] === lo)) return i;
      if (++i === cap) i = 0;
    }
  }

  /** Insert a new key with a raw value. @returns false when the key is present. */
  private insert(hi: number, lo: number, value: number): boolean {
    const i = this.slotOf(hi, lo);
    if (this.slots[i * 3 + 2] !== 0) return false;
    this.slots[i * 3] = hi;
    this.slots[i * 3 + 1] = lo;
    this.slots[i * 3 + 2] = value;
    if (++this.count > this.limit) this.grow();
    return true;
  }

  private grow(): void {
    const old = this.slots;
    this.cap = Math.ceil(this.cap * GROWTH);
    this.slots = new Uint32Array(this.cap * 3);
    this.limit = Math.floor(this.cap * MAX_LOAD);
    const slots = this.slots;
    for (let j = 0; j < old.length; j += 3) {
      const v = old[j + 2];
      if (v === 0) continue;
      const i = this.slotOf(old[j], old[j + 1]);
      slots[i * 3] = old[j];
      slots[i * 3 + 1] = old[j + 1];
      slots[i * 3 + 2] = v;
    }
  }
}

function pendingKey(key: ContentKey): string {
  return `${key.hi >>> 0}:${key.lo >>> 0}`;
}

function checkOrdinal(ordinal: number): void {
  if (!(Number.isInteger(ordinal) && ordinal >= 0 && ordinal <= MAX_ORDINAL)) {
    throw new RangeError(`item ordinal out of range: ${ordinal}`);
  }
}
