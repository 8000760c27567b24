// A persistent vector for the job store: records by position, appended at
// the back, reclaimed from the front. Elements live in chunks of 64; an
// update copies one chunk and the chunk list, once per step: each step edits
// under its own token (as the ordered set does), so chunks it created or
// copied are changed in place until the step's state is frozen. Written for
// the engine instead of using immutable.js's List so that the command line
// loads no npm package at start-up, and because a store needs nothing more.

const CHUNK = 64;

interface Chunk<T> {
  /** The edit token that may still change this chunk, or null. */
  o: object | null;
  /** Up to CHUNK elements. */
  readonly a: T[];
}

/**
 * A persistent vector with transient editing: `transient(owner)` gives a
 * copy whose updates change, in place, what `owner` created or copied, and
 * `persistent()` ends the editing. Every other update returns a new vector.
 */
export class Vec<T> implements Iterable<T> {
  #chunks: Chunk<T>[];
  /** Position of element 0 within the first chunk. */
  #offset: number;
  #size: number;
  readonly #owner: object | null;
  /** `#chunks` is this transient's own array. */
  #chunksOwned: boolean;

  private constructor(
    chunks: Chunk<T>[],
    offset: number,
    size: number,
    owner: object | null,
    chunksOwned: boolean,
  ) {
    this.#chunks = chunks;
    this.#offset = offset;
    this.#size = size;
    this.#owner = owner;
    this.#chunksOwned = chunksOwned;
  }

  /** An empty vector. */
  static empty<T>(): Vec<T> {
    return new Vec<T>([], 0, 0, null, false);
  }

  /** A vector of `xs`. */
  static of<T>(xs: Iterable<T>): Vec<T> {
    const t = Vec.empty<T>().transient({});
    for (const x of xs) t.push(x);
    return t.persistent();
  }

  /** Number of elements. */
  get size(): number {
    return this.#size;
  }

  /** The element at `i` (undefined outside 0..size-1). */
  get(i: number): T | undefined {
    if (!(i >= 0 && i < this.#size)) return undefined;
    const j = i + this.#offset;
    return this.#chunks[(j / CHUNK) | 0].a[j % CHUNK];
  }

  /** A transient copy editing under `owner`; this vector stays as it is. */
  transient(owner: object): Vec<T> {
    return new Vec(this.#chunks, this.#offset, this.#size, owner, false);
  }

  /** A persistent vector with the same elements (this one, if it already is). */
  persistent(): Vec<T> {
    if (this.#owner === null) return this;
    return new Vec(this.#chunks, this.#offset, this.#size, null, false);
  }

  // The vector to change: this one when transient, else a one-off transient copy.
  #editable(): Vec<T> {
    return this.#owner !== null ? this : this.transient({});
  }

  #result(t: Vec<T>): Vec<T> {
    return t === this ? this : t.persistent();
  }

  #ownChunks(): Chunk<T>[] {
    if (!this.#chunksOwned) {
      this.#chunks = this.#chunks.slice();
      this.#chunksOwned = true;
    }
    return this.#chunks;
  }

  // Chunk k, owned by this transient (copied once if not).
  #ownChunk(k: number): Chunk<T> {
    const chunks = this.#ownChunks();
    const c = chunks[k];
    if (c.o === this.#owner) return c;
    const copy = { o: this.#owner, a: c.a.slice() };
    chunks[k] = copy;
    return copy;
  }

  /** The vector with element `i` (0 ≤ i < size) replaced by `x`. */
  set(i: number, x: T): Vec<T> {
    if (!(i >= 0 && i < this.#size)) throw new RangeError(`index ${i} out of 0..${this.#size - 1}`);
    const t = this.#editable();
    const j = i + t.#offset;
    t.#ownChunk((j / CHUNK) | 0).a[j % CHUNK] = x;
    return this.#result(t);
  }

  /** The vector with `x` appended. */
  push(x: T): Vec<T> {
    const t = this.#editable();
    const j = t.#offset + t.#size;
    const k = (j / CHUNK) | 0;
    if (k === t.#chunks.length) t.#ownChunks().push({ o: t.#owner, a: [x] });
    else t.#ownChunk(k).a.push(x);
    t.#size++;
    return this.#result(t);
  }

  /** The vector without its first `k` elements. */
  skip(k: number): Vec<T> {
    if (k <= 0) return this;
    if (k >= this.#size) return this.clear();
    const t = this.#editable();
    const j = t.#offset + k;
    const drop = (j / CHUNK) | 0;
    if (drop > 0) {
      t.#chunks = t.#chunks.slice(drop);
      t.#chunksOwned = true;
    }
    t.#offset = j % CHUNK;
    t.#size -= k;
    return this.#result(t);
  }

  /** The empty vector (a transient one stays transient). */
  clear(): Vec<T> {
    const t = this.#editable();
    t.#chunks = [];
    t.#chunksOwned = true;
    t.#offset = 0;
    t.#size = 0;
    return this.#result(t);
  }

  /** Elements in order. */
  *[Symbol.iterator](): Iterator<T> {
    const chunks = this.#chunks;
    let j = this.#offset;
    for (let n = 0; n < this.#size; n++, j++) yield chunks[(j / CHUNK) | 0].a[j % CHUNK];
  }

  /** Elements in order, as an array. */
  toArray(): T[] {
    return [...this];
  }
}
