// `evtsim simulate --checkpoint_file F --checkpoint_interval_jobs N`:
// DR_EVT's automatic restart checkpoints (its sim.cpp
// `maybe_save_automatic_checkpoint`: one after each N more completed jobs,
// and one at each `--infile_list` file boundary; `--checkpoint_interval_jobs`
// needs `--checkpoint_file` and N > 0). DR_EVT's
// command line only writes them (a restart goes through its API); evtsim
// continues from F when F exists as the run starts, and removes F when the
// run completes, so an interrupted run is finished by running the same
// command again and its outputs are byte for byte those of a run never
// interrupted.
//
// A checkpoint is two files:
//  - F: one JSON value, replaced atomically (temporary, fsync, rename: the
//    writer of the run's outputs, io/atomic_writer.ts): the run's identity
//    (its options and its input files' sizes and times), the simulation
//    state (a snapshot, core/snapshot.ts, taken after a `flush` so that it
//    holds the live jobs only), the completed-job count, and how many bytes
//    of the rows journal it covers;
//  - F.rows: the rows journal, one JSON line per step that wrote rows,
//    appended and fsynced before F is replaced.
// The outputs are a function of the rows: resuming writes the journal's rows
// (up to the length F names; anything after it is a torn append of a later
// checkpoint that never completed, and is cut off) through the same outputs,
// then steps on from the snapshot, feeding the trace's jobs the snapshot has
// not seen (cli/run_loop.ts `unseen`). Writing is linear in the run: each
// checkpoint appends the rows since the previous one and a snapshot of the
// live jobs.

import { EvtsimError } from "../core/errors.ts";
import { type SnapshotData, snapshotOf } from "../core/snapshot.ts";
import { restoreSnapshot } from "../core/_snapshot_restore.ts";
import type { SimState } from "../core/state.ts";
import type { StepRows } from "../core/types.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { AtomicOutputSet } from "../io/atomic_writer.ts";
import type { ParsedOptions } from "./options.ts";

/** The value's `type`, and the layout version this program writes. */
const TYPE = "evtsim-checkpoint";
const VERSION = 1;

// Options that do not change what a run writes (a resumed run may differ in them).
const NOT_IDENTITY = new Set([
  "checkpoint_interval_jobs",
  // Where the outputs go in Redis (a password is not kept in the checkpoint).
  "redis_uri",
  "redis_key_prefix",
  "progress",
  "no_progress",
  "verbose",
  "debug",
  "help",
]);

/**
 * A run's identity: its options (those that change its outputs) and its
 * input files (size and modification time). A checkpoint is continued only
 * by the run it was taken of.
 */
export function runIdentity(o: ParsedOptions, inputs: readonly string[]): string {
  const options = [...o].filter(([k]) => !NOT_IDENTITY.has(k)).sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0
  );
  const files = inputs.map((path) => {
    try {
      const s = Deno.statSync(path);
      return [path, s.size, s.mtime?.getTime() ?? null];
    } catch {
      return [path, null, null];
    }
  });
  return JSON.stringify({ options, files });
}

/** What F holds. */
interface CheckpointValue {
  readonly type: typeof TYPE;
  readonly version: number;
  readonly run: string;
  readonly jobsCompleted: number;
  readonly journalBytes: number;
  readonly snapshot: SnapshotData;
}

/** A run continued from a checkpoint: the state to step on from and the rows already written. */
export interface Resumed {
  readonly state: SimState;
  readonly rows: StepRows[];
}

const encoder = new TextEncoder();

/** The checkpoints of one `simulate` run. */
export class Checkpoints {
  #pending: string[] = [];
  #journalBytes = 0;
  #lastJobs = 0;
  /** The clock of the last checkpoint written or continued from (none yet: undefined). */
  #lastTime: number | undefined;
  readonly #journal: string;

  private constructor(
    readonly file: string,
    readonly interval: number | undefined,
    readonly run: string,
  ) {
    this.#journal = `${file}.rows`;
  }

  /**
   * The run's checkpoints; when `file` exists, also the run it continues
   * (refused, one line naming `file`, when it is not a checkpoint of this
   * run).
   */
  static open(
    file: string,
    interval: number | undefined,
    run: string,
    registry: PolicyRegistry,
  ): { checkpoints: Checkpoints; resumed?: Resumed } {
    const c = new Checkpoints(file, interval, run);
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        c.#removeJournal();
        return { checkpoints: c };
      }
      throw new EvtsimError("input", `cannot read the checkpoint: ${(e as Error).message}`, {
        file,
      });
    }
    return { checkpoints: c, resumed: c.#resume(text, registry) };
  }

  #resume(text: string, registry: PolicyRegistry): Resumed {
    const bad = (why: string) =>
      new EvtsimError("input", `checkpoint: ${why}`, { file: this.file });
    let v: CheckpointValue;
    try {
      v = JSON.parse(text);
    } catch {
      throw bad("not a checkpoint (not JSON); remove it to start afresh");
    }
    if (v?.type !== TYPE) throw bad("not an evtsim checkpoint; remove it to start afresh");
    if (v.version !== VERSION) {
      throw bad(`version ${v.version} is not the version this program reads (${VERSION})`);
    }
    if (v.run !== this.run) {
      throw bad(
        "it is of another run (other options or input files); give the run's own options, or remove it to start afresh",
      );
    }
    if (!Number.isSafeInteger(v.journalBytes) || v.journalBytes < 0) {
      throw bad(`journalBytes: ${v.journalBytes} is not a byte count`);
    }
    let bytes: Uint8Array;
    try {
      bytes = Deno.readFileSync(this.#journal);
    } catch (e) {
      throw new EvtsimError("input", `cannot read the checkpoint's rows: ${(e as Error).message}`, {
        file: this.#journal,
      });
    }
    if (bytes.length < v.journalBytes) {
      throw new EvtsimError(
        "input",
        `the checkpoint's rows are ${bytes.length} bytes, shorter than the ${v.journalBytes} it covers`,
        { file: this.#journal },
      );
    }
    const lines = new TextDecoder().decode(bytes.subarray(0, v.journalBytes)).split("\n");
    lines.pop();
    const rows = lines.map((l, i) => {
      try {
        return JSON.parse(l) as StepRows;
      } catch {
        throw new EvtsimError("input", "checkpoint rows: not a JSON line", {
          file: this.#journal,
          line: i + 1,
        });
      }
    });
    // A later checkpoint's append that never completed is cut off.
    if (bytes.length > v.journalBytes) Deno.truncateSync(this.#journal, v.journalBytes);
    let state: SimState;
    try {
      state = restoreSnapshot(v.snapshot, registry);
    } catch (e) {
      if (!(e instanceof EvtsimError)) throw e;
      throw bad(e.message);
    }
    this.#journalBytes = v.journalBytes;
    this.#lastJobs = v.jobsCompleted;
    this.#lastTime = state.time;
    return { state, rows };
  }

  /** Notes one step's rows (journaled at the next checkpoint). */
  note(rows: StepRows): void {
    if (
      rows.jobs.length === 0 && rows.resources.length === 0 && rows.notices.length === 0 &&
      rows.decisions.length === 0 && (rows.submissions?.length ?? 0) === 0
    ) return;
    this.#pending.push(JSON.stringify(rows) + "\n");
  }

  /** Whether a checkpoint is due: N more jobs completed since the last one. */
  due(state: SimState): boolean {
    return this.interval !== undefined &&
      state.stats.jobsCompleted - this.#lastJobs >= this.interval;
  }

  /**
   * Whether a checkpoint is due at an `--infile_list` file boundary (DR_EVT
   * writes one at each): unless the last one is of the same moment (no job
   * completed and the clock not moved since).
   */
  dueAtFileBoundary(state: SimState): boolean {
    return !(state.stats.jobsCompleted === this.#lastJobs && state.time === this.#lastTime);
  }

  /**
   * Writes a checkpoint of `state` (taken after a `flush`): the rows since
   * the last one are appended to the journal and synced, then F is replaced.
   */
  save(state: SimState): void {
    const text = this.#pending.join("");
    this.#pending = [];
    const chunk = encoder.encode(text);
    try {
      // The checkpoint's folder is made as an output's is.
      const slash = this.#journal.lastIndexOf("/");
      if (slash > 0) Deno.mkdirSync(this.#journal.slice(0, slash), { recursive: true });
      const f = Deno.openSync(this.#journal, { write: true, create: true });
      try {
        // Anything past the covered length (a torn append) is overwritten.
        f.truncateSync(this.#journalBytes);
        f.seekSync(this.#journalBytes, Deno.SeekMode.Start);
        for (let off = 0; off < chunk.length;) off += f.writeSync(chunk.subarray(off));
        f.syncSync();
      } finally {
        f.close();
      }
    } catch (e) {
      throw new EvtsimError(
        "input",
        `cannot write the checkpoint's rows: ${(e as Error).message}`,
        {
          file: this.#journal,
        },
      );
    }
    const value: CheckpointValue = {
      type: TYPE,
      version: VERSION,
      run: this.run,
      jobsCompleted: state.stats.jobsCompleted,
      journalBytes: this.#journalBytes + chunk.length,
      snapshot: snapshotOf(state),
    };
    const set = new AtomicOutputSet();
    try {
      set.open(this.file).text(JSON.stringify(value) + "\n");
      set.commit();
    } catch (e) {
      set.abort();
      throw e;
    }
    this.#journalBytes += chunk.length;
    this.#lastJobs = state.stats.jobsCompleted;
    this.#lastTime = state.time;
  }

  #removeJournal(): void {
    try {
      Deno.removeSync(this.#journal);
    } catch { /* none */ }
  }

  /** The run completed: its checkpoint and journal are removed. */
  finish(): void {
    try {
      Deno.removeSync(this.file);
    } catch { /* none */ }
    this.#removeJournal();
  }
}
