// A simulation trace's jobs as columns, for `evtsim simulate`: one number
// per field in typed arrays sized to the file's line count (32-bit integers
// while the values are), and each queue, user and account name once. The run
// loop makes the job objects 512 at a time as it feeds them (slice), so the
// whole trace is never held as objects: HPC2N's 202,876 jobs took 15.4 MiB
// of V8 heap as objects (80 bytes each with the array) and take 4.1 MiB here
// (21 bytes a job), outside the heap.

import type { JobSpec } from "../core/types.ts";

// Column ids of the names: 0 is "no value".
class Names {
  readonly #ids = new Map<string, number>();
  readonly names: (string | undefined)[] = [undefined];
  #last = "";
  #lastId = 0;

  id(s: string | undefined): number {
    if (s === undefined) return 0;
    if (s === this.#last && this.#lastId !== 0) return this.#lastId;
    let id = this.#ids.get(s);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(s);
      this.#ids.set(s, id);
    }
    this.#last = s;
    this.#lastId = id;
    return id;
  }
}

// A number column: 32-bit integers until a value is not one (a time past
// 2^31 - 1 s, a fraction), then doubles; 4 bytes a job on ordinary traces.
type Numbers = Int32Array | Float64Array;

// `column` with `x` at `i`, widened to doubles first when `x` is not a 32-bit
// integer (-0 is not: it stays -0).
function put(column: Numbers, i: number, x: number): Numbers {
  if (column instanceof Int32Array && ((x | 0) !== x || Object.is(x, -0))) {
    const wide = new Float64Array(column.length);
    for (let k = 0; k < i; k++) wide[k] = column[k];
    column = wide;
  }
  column[i] = x;
  return column;
}

/** Simulation jobs in columns, in file order; {@link JobColumns.slice} makes the objects. */
export class JobColumns {
  #n = 0;
  #submit: Numbers;
  #nodes: Numbers;
  #limit: Numbers;
  // The optional fields: a job without a value has no bit in #hasActual, NaN priority.
  #actual: Numbers;
  readonly #hasActual: Uint8Array;
  #priority: Float64Array | undefined;
  readonly #queue: Uint32Array;
  #user: Uint32Array | undefined;
  #account: Uint32Array | undefined;
  readonly #names = new Names();
  #sorted = true;

  /** Room for `capacity` jobs (the file's line count: a job a line at most). */
  constructor(readonly capacity: number) {
    this.#submit = new Int32Array(capacity);
    this.#nodes = new Int32Array(capacity);
    this.#limit = new Int32Array(capacity);
    this.#actual = new Int32Array(capacity);
    this.#hasActual = new Uint8Array(capacity);
    this.#queue = new Uint32Array(capacity);
  }

  /** Jobs added. */
  get length(): number {
    return this.#n;
  }

  /** Whether the jobs were added in submit-time order. */
  get sorted(): boolean {
    return this.#sorted;
  }

  /** Adds a job (the values as the reader's job object would have them). */
  add(
    submitTime: number,
    numNodes: number,
    timeLimit: number,
    actualRunTime: number | undefined,
    queue: string | undefined,
    priority: number | undefined,
    user: string | undefined,
    account: string | undefined,
  ): void {
    const i = this.#n++;
    if (i > 0 && submitTime < this.#submit[i - 1]) this.#sorted = false;
    this.#submit = put(this.#submit, i, submitTime);
    this.#nodes = put(this.#nodes, i, numNodes);
    this.#limit = put(this.#limit, i, timeLimit);
    if (actualRunTime !== undefined) {
      this.#actual = put(this.#actual, i, actualRunTime);
      this.#hasActual[i] = 1;
    }
    this.#queue[i] = this.#names.id(queue);
    if (priority !== undefined) {
      (this.#priority ??= new Float64Array(this.capacity).fill(NaN))[i] = priority;
    }
    if (user !== undefined && user !== "") {
      (this.#user ??= new Uint32Array(this.capacity))[i] = this.#names.id(user);
    }
    if (account !== undefined && account !== "") {
      (this.#account ??= new Uint32Array(this.capacity))[i] = this.#names.id(account);
    }
  }

  /** Job `i`'s submit time. */
  submitTime(i: number): number {
    return this.#submit[i];
  }

  /** Job `i`'s time limit. */
  timeLimit(i: number): number {
    return this.#limit[i];
  }

  /** Job `i`'s actual run time, if it has one. */
  actualRunTime(i: number): number | undefined {
    return this.#hasActual[i] === 1 ? this.#actual[i] : undefined;
  }

  /**
   * The first job at which the latest submit time so far plus the sum of
   * the jobs' spans so far (each the larger of its time limit and its run
   * time, the limit when it has none) passes `max`, with those two figures;
   * undefined when none does. One loop over the columns: the same sums
   * through the accessors cost a call per field and job, in code still cold.
   */
  firstBeyond(max: number): { index: number; latest: number; spans: number } | undefined {
    const submit = this.#submit, limit = this.#limit, actual = this.#actual;
    const has = this.#hasActual;
    let latest = 0, spans = 0;
    for (let i = 0; i < this.#n; i++) {
      if (submit[i] > latest) latest = submit[i];
      const l = limit[i];
      const run = has[i] === 1 ? actual[i] : l;
      spans += run > l ? run : l;
      if (latest + spans > max) return { index: i, latest, spans };
    }
    return undefined;
  }

  /** Sets job `i`'s time limit and actual run time (the overrun policies). */
  setTimes(i: number, timeLimit: number, actualRunTime: number): void {
    this.#limit = put(this.#limit, i, timeLimit);
    this.#actual = put(this.#actual, i, actualRunTime);
    this.#hasActual[i] = 1;
  }

  /** Job `i`'s user and account, if it has them. */
  owner(i: number): { user: string | undefined; account: string | undefined } {
    const names = this.#names.names;
    return {
      user: this.#user === undefined ? undefined : names[this.#user[i]],
      account: this.#account === undefined ? undefined : names[this.#account[i]],
    };
  }

  /** Jobs `from` to `to` (exclusive) as the reader's job objects (the same keys in the same order). */
  slice(from: number, to: number): JobSpec[] {
    const out: JobSpec[] = [];
    const names = this.#names.names;
    const end = Math.min(to, this.#n);
    for (let i = from; i < end; i++) {
      const a = this.#hasActual[i] === 1 ? this.#actual[i] : NaN;
      const p = this.#priority === undefined ? NaN : this.#priority[i];
      const job = jobSpec(
        small(this.#submit[i]),
        small(this.#nodes[i]),
        small(this.#limit[i]),
        a === a ? small(a) : undefined,
        names[this.#queue[i]],
        p === p ? small(p) : undefined,
      );
      const u = this.#user === undefined ? undefined : names[this.#user[i]];
      const c = this.#account === undefined ? undefined : names[this.#account[i]];
      out.push(u === undefined && c === undefined ? job : withOwner(job, u, c));
    }
    return out;
  }
}

// A number read from a Float64Array comes boxed (a heap number), and the
// first boxed value stored in a job's field makes V8 box that field in every
// job, and in the engine's records copied from them: 137 bytes a job object
// instead of 72. Integers that fit V8's small integers (Smi) are given as such
// (-0 stays -0: it is not one).
function small(x: number): number {
  const i = x | 0;
  return i === x && (i !== 0 || 1 / x > 0) ? i : x;
}

/** A job object with only the keys that have values (the trace reader's). */
export function jobSpec(
  submitTime: number,
  numNodes: number,
  timeLimit: number,
  actualRunTime: number | undefined,
  queue: string | undefined,
  priority: number | undefined,
): JobSpec {
  let job: JobSpec;
  if (actualRunTime === undefined) {
    job = queue === undefined
      ? { submitTime, numNodes, timeLimit }
      : { submitTime, numNodes, timeLimit, queue };
  } else {
    job = queue === undefined
      ? { submitTime, numNodes, timeLimit, actualRunTime }
      : { submitTime, numNodes, timeLimit, actualRunTime, queue };
  }
  return priority === undefined ? job : { ...job, priority };
}

/** `job` with its `user` and `account` (the optional trace columns; an empty value is no value). */
export function withOwner<T extends JobSpec>(
  job: T,
  user: string | undefined,
  account: string | undefined,
): T {
  const u = user === undefined || user === "" ? undefined : user;
  const a = account === undefined || account === "" ? undefined : account;
  if (u === undefined && a === undefined) return job;
  if (a === undefined) return { ...job, user: u };
  return u === undefined ? { ...job, account: a } : { ...job, user: u, account: a };
}
