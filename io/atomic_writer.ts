// Output files are written under temporary names and moved into place only
// when the whole run succeeds, all of them or none: a failed, interrupted or
// refused run leaves every old output byte-identical and no temporary behind.
//
// Commit is two-phase. First every temporary is flushed, fsynced and closed;
// a failure there removes every temporary and the old files were never
// touched. Then each old file is kept under a backup name (a hard link, or a
// rename where the file system has no hard links) and the temporary is
// renamed over it; if a rename fails, the files already
// replaced are put back from their backups (or removed when there was no old
// file), so the set of outputs is the old one or the new one, never a mix.

import { EvtsimError } from "../core/errors.ts";
import { describeFsError } from "./fs_errors.ts";
import { commitInProgress, temporaryMade, temporaryReleased } from "./_temporaries.ts";

// Text is encoded into one reusable buffer as it arrives, so no line outlives
// its call: buffering the strings themselves kept a megabyte of them alive
// across collections (they were a third of what the collector copied).
const BUFFER_BYTES = 1 << 16;

/** An open temporary file: the few operations the writer needs. */
export interface OutputFile {
  /** Writes some bytes; returns how many were written. */
  write(bytes: Uint8Array): number;
  /** Flushes the file's data to the device. */
  sync(): void;
  /** Closes the file. */
  close(): void;
}

/**
 * The file-system calls the writer makes, so tests can inject failures.
 * Every call is synchronous and throws the platform's error on failure.
 */
export interface OutputFileSystem {
  /** Creates `path`, failing if it exists. */
  create(path: string): OutputFile;
  /** Renames `from` to `to`, replacing `to`. */
  rename(from: string, to: string): void;
  /** Removes a file or an empty folder. */
  remove(path: string): void;
  /** Makes `to` a hard link to `from`. */
  link(from: string, to: string): void;
  /** Whether something exists at `path` (symbolic links are not followed). */
  exists(path: string): boolean;
  /** Creates the folder `path` (its parent exists). */
  mkdir(path: string): void;
  /**
   * Whether what is written to `path` is dropped (an in-memory file system
   * that keeps some outputs only), so that a writer need not format it.
   */
  discards?(path: string): boolean;
}

/**
 * The real file system through Deno's synchronous calls.
 *
 * @example
 * ```ts
 * import { DENO_OUTPUT_FS } from "./atomic_writer.ts";
 * console.assert(DENO_OUTPUT_FS.exists("/"));
 * ```
 */
export const DENO_OUTPUT_FS: OutputFileSystem = {
  create(path) {
    const f = Deno.openSync(path, { write: true, createNew: true });
    return { write: (b) => f.writeSync(b), sync: () => f.syncSync(), close: () => f.close() };
  },
  rename: (from, to) => Deno.renameSync(from, to),
  remove: (path) => Deno.removeSync(path),
  link: (from, to) => Deno.linkSync(from, to),
  exists(path) {
    try {
      Deno.lstatSync(path);
      return true;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return false;
      throw e;
    }
  },
  mkdir: (path) => Deno.mkdirSync(path),
};

// The number of decimal digits of a non-negative 32-bit integer.
function digits(x: number): number {
  if (x < 100000) return x < 10 ? 1 : x < 100 ? 2 : x < 1000 ? 3 : x < 10000 ? 4 : 5;
  return x < 1000000 ? 6 : x < 10000000 ? 7 : x < 100000000 ? 8 : x < 1000000000 ? 9 : 10;
}

/** Sets whose temporaries are still open, for cleanup on a signal. */
const LIVE = new Set<AtomicOutputSet>();

/**
 * Removes the temporaries of every output set not yet committed or aborted
 * (for a SIGINT/SIGTERM handler). Returns how many sets were aborted.
 *
 * @example
 * ```ts
 * import { abortAllOutputs } from "./atomic_writer.ts";
 * console.assert(abortAllOutputs() === 0);
 * ```
 */
export function abortAllOutputs(): number {
  const sets = [...LIVE];
  for (const s of sets) s.abort();
  return sets.length;
}

function outputError(path: string, doing: string, e: unknown): EvtsimError {
  if (e instanceof EvtsimError) return e;
  return new EvtsimError("input", `cannot ${doing}: ${describeFsError(e)}`, { file: path });
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash > 0 ? path.slice(0, slash) : slash === 0 ? "/" : ".";
}

/** A buffered text file that appears at its final path only when its set commits. */
export class AtomicTextWriter {
  /** Where the file appears on commit. */
  readonly path: string;
  /** The temporary file's path. */
  readonly tmpPath: string;
  private file: OutputFile | null;
  private readonly buffer = new Uint8Array(BUFFER_BYTES);
  private used = 0;
  private readonly encoder = new TextEncoder();

  /** Use {@link AtomicOutputSet.open}. */
  constructor(path: string, tmpPath: string, file: OutputFile) {
    this.path = path;
    this.tmpPath = tmpPath;
    this.file = file;
  }

  /** Appends one line (a newline is added). */
  line(text: string): void {
    this.text(text);
    if (this.used === this.buffer.length) this.drain();
    this.buffer[this.used++] = 10;
  }

  /** Appends text as it is (no newline added). */
  text(text: string): void {
    const n = text.length;
    const buf = this.buffer;
    let used = this.used;
    if (used + n > buf.length) {
      this.drain();
      used = 0;
      if (n > buf.length) {
        // Longer than the buffer (a statistics JSON, say): write it whole.
        this.writeBytes(this.encoder.encode(text));
        return;
      }
    }
    // Schedules are ASCII: copy code units, and hand anything else to the encoder.
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x80) {
        this.used = used;
        this.encodeRest(text.slice(i));
        return;
      }
      buf[used++] = c;
    }
    this.used = used;
  }

  /**
   * Appends `String(x)`. A safe integer (every time and node count of a
   * schedule in whole seconds) is written digit by digit: building the line
   * as a string first and copying it was a seventh of light_100k's run.
   */
  number(x: number): void {
    // A sign and at most 16 digits.
    if (this.used + 17 > this.buffer.length) this.drain();
    const buf = this.buffer;
    let used = this.used;
    if ((x | 0) === x && x >= 0) {
      // Most values (times under 68 years, node counts): integer division,
      // and the digits counted first so they are written in place, last first.
      let i = used + digits(x);
      this.used = i;
      do {
        const q = (x / 10) | 0;
        buf[--i] = 48 + x - q * 10;
        x = q;
      } while (x > 0);
      return;
    }
    if (!Number.isSafeInteger(x)) return this.text(String(x));
    if (x < 0) {
      buf[used++] = 45;
      x = -x;
    }
    const first = used;
    do {
      const q = Math.floor(x / 10);
      buf[used++] = 48 + (x - q * 10);
      x = q;
    } while (x > 0);
    for (let i = first, j = used - 1; i < j; i++, j--) {
      const c = buf[i];
      buf[i] = buf[j];
      buf[j] = c;
    }
    this.used = used;
  }

  /** Appends one ASCII character, given by its code (a comma, a newline). */
  char(code: number): void {
    if (this.used === this.buffer.length) this.drain();
    this.buffer[this.used++] = code;
  }

  /** Appends bytes as they are (a binary file: a Parquet schedule, a PNG figure). */
  bytes(bytes: Uint8Array): void {
    this.drain();
    this.writeBytes(bytes);
  }

  private encodeRest(rest: string): void {
    for (;;) {
      const { read, written } = this.encoder.encodeInto(rest, this.buffer.subarray(this.used));
      this.used += written;
      if (read === rest.length) return;
      rest = rest.slice(read);
      this.drain();
    }
  }

  private drain(): void {
    if (this.used === 0) return;
    const bytes = this.buffer.subarray(0, this.used);
    this.used = 0;
    this.writeBytes(bytes);
  }

  private writeBytes(bytes: Uint8Array): void {
    if (this.file === null) return;
    let off = 0;
    try {
      while (off < bytes.length) off += this.file.write(bytes.subarray(off));
    } catch (e) {
      throw outputError(this.path, "write", e);
    }
  }

  /** Flushes, fsyncs and closes the temporary (phase one of a commit). */
  finish(): void {
    this.drain();
    const f = this.file;
    if (f === null) return;
    try {
      f.sync();
    } catch (e) {
      throw outputError(this.path, "write", e);
    } finally {
      this.file = null;
      try {
        f.close();
      } catch { /* the sync error, if any, is the one to report */ }
    }
  }

  /** Closes the temporary without flushing (for abort). */
  close(): void {
    const f = this.file;
    this.file = null;
    this.used = 0;
    try {
      f?.close();
    } catch { /* already closed */ }
  }
}

/**
 * The output files of one run, committed together or not at all.
 *
 * @example
 * ```ts
 * import { AtomicOutputSet } from "./atomic_writer.ts";
 * const dir = Deno.makeTempDirSync();
 * const set = new AtomicOutputSet();
 * set.open(`${dir}/a.csv`).line("x");
 * set.open(`${dir}/b.csv`).line("y");
 * set.commit();
 * console.assert(Deno.readTextFileSync(`${dir}/b.csv`) === "y\n");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export class AtomicOutputSet {
  private readonly writers: AtomicTextWriter[] = [];
  private readonly createdDirs: string[] = [];
  private state: "open" | "committed" | "aborted" = "open";

  /** `fs` is the real file system unless a test injects another. */
  constructor(private readonly fs: OutputFileSystem = DENO_OUTPUT_FS) {}

  /**
   * Creates the temporary for `path` (and `path`'s missing folders, which
   * an abort removes again). Throws an {@link EvtsimError} naming `path`.
   */
  open(path: string): AtomicTextWriter {
    if (this.state !== "open") throw new EvtsimError("state", "output set already closed");
    LIVE.add(this);
    try {
      this.makeParents(parentOf(path));
    } catch (e) {
      throw outputError(path, "create its folder", e);
    }
    let tmpPath = `${path}.tmp-${Deno.pid}`;
    for (let k = 1; this.fs.exists(tmpPath); k++) tmpPath = `${path}.tmp-${Deno.pid}-${k}`;
    // Announced before it exists, so that a signal the moment it appears
    // still finds it on the list (cli/_supervise.ts).
    temporaryMade(tmpPath, "file");
    let file: OutputFile;
    try {
      file = this.fs.create(tmpPath);
    } catch (e) {
      temporaryReleased(tmpPath);
      throw outputError(path, "write", e);
    }
    const w = new AtomicTextWriter(path, tmpPath, file);
    this.writers.push(w);
    return w;
  }

  private makeParents(dir: string): void {
    if (this.fs.exists(dir)) return;
    this.makeParents(parentOf(dir));
    temporaryMade(dir, "folder");
    try {
      this.fs.mkdir(dir);
    } catch (e) {
      temporaryReleased(dir);
      throw e;
    }
    this.createdDirs.push(dir);
  }

  /** Moves every file into place, or (on any failure) none of them. */
  commit(): void {
    if (this.state !== "open") throw new EvtsimError("state", "output set already closed");
    try {
      for (const w of this.writers) w.finish();
    } catch (e) {
      this.abort();
      throw e;
    }
    // Each step is recorded before it is taken, so a rollback undoes exactly
    // what happened: an old file replaced or moved aside goes back, a backup
    // link of a file never replaced is dropped (renaming a link onto its own
    // file does nothing), a new file without an old one is removed.
    type Step = { path: string; backup?: string; moved: boolean; renamed: boolean };
    const steps: Step[] = [];
    let current: AtomicTextWriter | undefined;
    commitInProgress(true);
    try {
      for (const w of this.writers) {
        current = w;
        const step: Step = { path: w.path, moved: false, renamed: false };
        if (this.fs.exists(w.path)) {
          let backup = `${w.path}.bak-${Deno.pid}`;
          for (let k = 1; this.fs.exists(backup); k++) backup = `${w.path}.bak-${Deno.pid}-${k}`;
          try {
            this.fs.link(w.path, backup);
          } catch {
            // No hard links here (some file systems): move the old file aside instead.
            this.fs.rename(w.path, backup);
            step.moved = true;
          }
          step.backup = backup;
        }
        steps.push(step);
        this.fs.rename(w.tmpPath, w.path);
        step.renamed = true;
      }
    } catch (e) {
      for (const step of steps.reverse()) {
        try {
          if (step.backup === undefined) {
            if (step.renamed) this.fs.remove(step.path);
          } else if (step.renamed || step.moved) this.fs.rename(step.backup, step.path);
          else this.fs.remove(step.backup);
        } catch { /* best effort: the error below names the failing path */ }
      }
      this.abort();
      commitInProgress(false);
      throw outputError(current!.path, "replace it", e);
    }
    commitInProgress(false);
    const backups = steps.flatMap((s) => s.backup !== undefined ? [s.backup] : []);
    for (const b of backups) this.quietRemove(b);
    this.state = "committed";
    LIVE.delete(this);
    for (const w of this.writers) temporaryReleased(w.tmpPath);
    for (const d of this.createdDirs) temporaryReleased(d);
  }

  /** Removes every temporary and every folder this set created. */
  abort(): void {
    if (this.state === "committed") return;
    this.state = "aborted";
    LIVE.delete(this);
    for (const w of this.writers) {
      w.close();
      this.quietRemove(w.tmpPath);
      temporaryReleased(w.tmpPath);
    }
    for (const d of this.createdDirs.reverse()) {
      this.quietRemove(d);
      temporaryReleased(d);
    }
    this.createdDirs.length = 0;
  }

  private quietRemove(path: string): void {
    try {
      this.fs.remove(path);
    } catch { /* never created, already gone, or (a folder) not empty */ }
  }
}
