// Where a session keeps the rows its finish reply sends (job, resource and
// notice rows, and decisions if it asked for them): in memory, or in a file
// of its own, one JSON row per line, so a session's memory does not grow
// with its output (a run with millions of decisions holds none of them).
// Rows of a failed call are taken back (`mark`, then `rollback`).

/** The rows of one kind a session has kept. */
export interface RowStore {
  /** Rows kept. */
  readonly count: number;
  append(row: unknown): void;
  /** Where the store stands now (before a call). */
  mark(): number;
  /** Takes back every row appended since `mark` (the call failed). */
  rollback(mark: number): void;
  /** Rows `from` .. `from + count - 1` as JSON text, comma-separated (no brackets). */
  page(from: number, count: number): string;
  /** Frees what it holds (the file is removed with its folder). */
  close(): void;
}

/** Rows in an array (inline sessions without a spill folder). */
export class MemoryRows implements RowStore {
  readonly #rows: unknown[] = [];
  get count(): number {
    return this.#rows.length;
  }
  append(row: unknown): void {
    this.#rows.push(row);
  }
  mark(): number {
    return this.#rows.length;
  }
  rollback(mark: number): void {
    this.#rows.length = mark;
  }
  page(from: number, count: number): string {
    return this.#rows.slice(from, from + count).map((r) => JSON.stringify(r)).join(",");
  }
  close(): void {
    this.#rows.length = 0;
  }
}

const FLUSH_CHARS = 1 << 20;
const READ_BYTES = 1 << 16;

/** Rows in a file, one JSON text per line, written through a 1 MiB buffer. */
export class FileRows implements RowStore {
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();
  #count = 0;
  #parts: string[] = [];
  #chars = 0;
  /** Bytes on disk; marks are byte offsets of flushed rows. */
  #bytes = 0;
  readonly #marks = new Map<number, number>();
  /** Sequential reading: the next row, its byte offset, and text read past it. */
  #cursor = { row: 0, offset: 0, rest: "" };

  constructor(path: string) {
    this.#file = Deno.openSync(path, { read: true, write: true, createNew: true });
  }

  get count(): number {
    return this.#count;
  }

  append(row: unknown): void {
    const text = JSON.stringify(row) + "\n";
    this.#parts.push(text);
    this.#chars += text.length;
    this.#count++;
    if (this.#chars >= FLUSH_CHARS) this.#flush();
  }

  mark(): number {
    this.#flush();
    this.#marks.clear();
    this.#marks.set(this.#count, this.#bytes);
    return this.#count;
  }

  rollback(mark: number): void {
    const bytes = this.#marks.get(mark);
    if (bytes === undefined) throw new Error(`no mark at row ${mark}`);
    this.#parts = [];
    this.#chars = 0;
    this.#file.truncateSync(bytes);
    this.#bytes = bytes;
    this.#count = mark;
    this.#cursor = { row: 0, offset: 0, rest: "" };
  }

  page(from: number, count: number): string {
    this.#flush();
    if (from !== this.#cursor.row) this.#cursor = { row: 0, offset: 0, rest: "" };
    const out: string[] = [];
    const end = Math.min(from + count, this.#count);
    const buf = new Uint8Array(READ_BYTES);
    let { row, offset, rest } = this.#cursor;
    let pos = 0;
    while (row < end) {
      const nl = rest.indexOf("\n", pos);
      if (nl < 0) {
        rest = rest.slice(pos);
        pos = 0;
        this.#file.seekSync(offset, Deno.SeekMode.Start);
        const n = this.#file.readSync(buf);
        if (n === null || n === 0) throw new Error("the row file ended early");
        offset += n;
        rest += this.#decoder.decode(buf.subarray(0, n), { stream: true });
        continue;
      }
      if (row >= from) out.push(rest.slice(pos, nl));
      pos = nl + 1;
      row++;
    }
    rest = rest.slice(pos);
    this.#cursor = { row, offset, rest };
    return out.join(",");
  }

  close(): void {
    try {
      this.#file.close();
    } catch { /* closed already */ }
  }

  #flush(): void {
    if (this.#parts.length === 0) return;
    const bytes = this.#encoder.encode(this.#parts.join(""));
    this.#parts = [];
    this.#chars = 0;
    this.#file.seekSync(this.#bytes, Deno.SeekMode.Start);
    let off = 0;
    while (off < bytes.length) off += this.#file.writeSync(bytes.subarray(off));
    this.#bytes += bytes.length;
  }
}
