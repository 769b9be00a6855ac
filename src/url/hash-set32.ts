/**
 * A compact set of 32-bit hashes (query variants, URL shapes): an open-addressing table in a
 * Uint32Array.
 */

/**
 * A growable open-addressing set of non-zero 32-bit integers in a Uint32Array: 4–8 bytes per
 * member, against ~30 for a `Set<number>` of heap numbers.
 */
export class HashSet32 {
  private slots = new Uint32Array(8);
  size = 0;

  /** Adds `h` (0 is mapped to 1); returns true when it was not present. */
  add(h: number): boolean {
    if (h === 0) h = 1;
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    return this.insert(this.slots, h);
  }

  /** Whether `h` (0 mapped to 1) is present. */
  has(h: number): boolean {
    if (h === 0) h = 1;
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i];
      if (v === h) return true;
      if (v === 0) return false;
    }
  }

  private insert(slots: Uint32Array, h: number): boolean {
    const mask = slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = slots[i];
      if (v === h) return false;
      if (v === 0) {
        slots[i] = h;
        this.size++;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    const next = new Uint32Array(old.length * 2);
    this.size = 0;
    for (const v of old) if (v !== 0) this.insert(next, v);
    this.slots = next;
  }
}
