// Output files are written under a temporary name and renamed into place
// only when the run succeeds, so a failed run never leaves a half-written
// file behind. Lines are buffered and written in large chunks.

const CHUNK_CHARS = 1 << 20;

/** A buffered text file that appears at its final path only on `commit()`. */
export class AtomicTextWriter {
  readonly path: string;
  private readonly tmpPath: string;
  private file: Deno.FsFile | null;
  private parts: string[] = [];
  private chars = 0;
  private readonly encoder = new TextEncoder();

  private constructor(path: string, tmpPath: string, file: Deno.FsFile) {
    this.path = path;
    this.tmpPath = tmpPath;
    this.file = file;
  }

  /** Creates the temporary file next to `path` (and `path`'s folder if missing). */
  static open(path: string): AtomicTextWriter {
    const slash = path.lastIndexOf("/");
    if (slash > 0) Deno.mkdirSync(path.slice(0, slash), { recursive: true });
    const tmpPath = `${path}.tmp-${Deno.pid}`;
    const file = Deno.openSync(tmpPath, { write: true, create: true, truncate: true });
    return new AtomicTextWriter(path, tmpPath, file);
  }

  /** Appends one line (a newline is added). */
  line(text: string): void {
    this.parts.push(text);
    this.chars += text.length + 1;
    if (this.chars >= CHUNK_CHARS) this.drain();
  }

  private drain(): void {
    if (this.parts.length === 0 || this.file === null) return;
    const bytes = this.encoder.encode(this.parts.join("\n") + "\n");
    let off = 0;
    while (off < bytes.length) off += this.file.writeSync(bytes.subarray(off));
    this.parts = [];
    this.chars = 0;
  }

  /** Flushes, closes and renames the file into place. */
  commit(): void {
    this.drain();
    this.file?.close();
    this.file = null;
    Deno.renameSync(this.tmpPath, this.path);
  }

  /** Closes and deletes the temporary file; the final path is untouched. */
  abort(): void {
    try {
      this.file?.close();
    } catch { /* already closed */ }
    this.file = null;
    try {
      Deno.removeSync(this.tmpPath);
    } catch { /* never created or already gone */ }
  }
}
