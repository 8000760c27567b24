// A process's parsed traces, for commands that run many simulations of the
// same files (a sweep's long-lived cell workers, compare's policies): a trace
// is read once and every later run of it starts from the jobs already parsed.
// The engine never changes the jobs it is given (they are copied into its own
// store), so sharing them cannot make one run see another's.
//
// An entry is found by the file's path, its size and modification time and
// the reading options its format's reader uses, so a trace edited between
// two runs is read again, while the cells of a sweep that differ only in the
// machine size or the run-time mode share one parse (a CSV reader sees only
// whether the mode is `actual`; an SWF report words -n, so its lines are
// made again from the kept report; a CSV whose jobs all have a run time is
// the same read either way). Only regular files are kept (a pipe can
// be read only once); a file that cannot be read is never kept, so every run
// reports it as a single run does.

import { type LoadedInput, loadInput, type LoadOptions } from "./load.ts";
import { formatSwfReport } from "../io/swf.ts";

/** How many parsed traces a cache keeps (the least recently used goes first). */
const DEFAULT_CAPACITY = 4;

/**
 * A cache of parsed traces in front of `loadInput`.
 *
 * @example
 * ```ts
 * import { TraceCache } from "./_trace_cache.ts";
 * const dir = Deno.makeTempDirSync();
 * const path = `${dir}/t.csv`;
 * Deno.writeTextFileSync(
 *   path,
 *   "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,10,5\n",
 * );
 * const cache = new TraceCache();
 * const options = {
 *   format: "simple" as const,
 *   timezone: "UTC",
 *   maxJobs: 0,
 *   runTimeMode: "actual" as const,
 *   swfUnit: "procs" as const,
 *   swfReplayWait: false,
 *   requireSorted: false,
 * };
 * const a = await cache.load(path, options);
 * const b = await cache.load(path, options);
 * console.assert(a === b && cache.reads === 1);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export class TraceCache {
  readonly #entries = new Map<string, LoadedInput>();
  /** An SWF entry's input as another -n words its report, made once each (the run keeps per-input tables). */
  readonly #worded = new WeakMap<LoadedInput, Map<number | undefined, LoadedInput>>();
  /** How many times a file was actually read (parsed). */
  reads = 0;

  /** Called with each trace actually read and kept, and its key (compare shares it with its workers). */
  onRead: ((key: string, input: LoadedInput) => void) | undefined;

  constructor(private readonly capacity: number = DEFAULT_CAPACITY) {}

  /** Keeps `input` as read under `key` (a trace another thread read: cli/_compare_jobs.ts). */
  adopt(key: string, input: LoadedInput): void {
    this.#entries.set(key, input);
    if (this.#entries.size > this.capacity) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  /** `loadInput(path, options)`, from the cache when the same file was read with the same options. */
  readonly load = async (path: string, options: LoadOptions): Promise<LoadedInput> => {
    let file: FileStamp | undefined;
    try {
      const info = await Deno.stat(path);
      if (info.isFile) file = [path, info.size, info.mtime?.getTime() ?? null];
    } catch { /* the reader reports it */ }
    const key = file === undefined ? undefined : keyOf(file, options);
    const hit = key === undefined ? undefined : this.#entries.get(key);
    if (hit !== undefined) {
      // Most recently used last.
      this.#entries.delete(key!);
      this.#entries.set(key!, hit);
      return this.#wordedFor(hit, path, options);
    }
    this.reads++;
    const input = await loadInput(path, options);
    if (key !== undefined) {
      this.adopt(key, input);
      this.onRead?.(key, input);
      // Every job with a run time: read for the other side of `actual`, the
      // CSV gives the very same jobs and lines (nothing falls back to its limit).
      if (isCsv(options) && everyJobHasRunTime(input)) {
        this.adopt(keyOf(file!, options, options.runTimeMode !== "actual"), input);
      }
      // The input as read is its own -n's wording.
      if (input.swf?.report !== undefined) {
        this.#worded.set(input, new Map([[options.totalNodes, input]]));
      }
    }
    return input;
  };

  // A kept SWF input with its report's lines for this run's -n.
  #wordedFor(input: LoadedInput, path: string, options: LoadOptions): LoadedInput {
    const report = input.swf?.report;
    if (report === undefined) return input;
    let byNodes = this.#worded.get(input);
    if (byNodes === undefined) this.#worded.set(input, byNodes = new Map());
    let worded = byNodes.get(options.totalNodes);
    if (worded === undefined) {
      worded = { ...input, messages: formatSwfReport(report, path, options.totalNodes) };
      byNodes.set(options.totalNodes, worded);
    }
    return worded;
  }
}

/**
 * The options the format's reader uses (cli/load.ts): the key of a parsed
 * trace. The machine size only words an SWF report (made again per run from
 * the report kept); a CSV reader sees only whether the run-time mode is
 * `actual` (jobs without an actual run time are then warned about), the SWF
 * and sacct readers not at all.
 */
function readerOptions(options: LoadOptions, actual: boolean): unknown {
  const { totalNodes: _words, runTimeMode: _mode, ...read } = options;
  return isCsv(options) ? { ...read, actualRunTime: actual } : read;
}

const isCsv = (options: LoadOptions) => options.format === "simple" || options.format === "lassen";

/** A regular file as read: its path, size and modification time. */
type FileStamp = [string, number, number | null];

// The key of `file` read with `options` (for the given side of `actual`).
function keyOf(
  file: FileStamp,
  options: LoadOptions,
  actual = options.runTimeMode === "actual",
): string {
  return JSON.stringify([...file, readerOptions(options, actual)], setsSorted);
}

// Whether every simulation job has a positive actual run time.
function everyJobHasRunTime(input: LoadedInput): boolean {
  if (input.mode !== "simulation") return false;
  const c = input.columns;
  if (c !== undefined) {
    for (let i = 0; i < c.length; i++) if (!(c.actualRunTime(i)! > 0)) return false;
  }
  for (const j of input.jobs) if (!(j.actualRunTime! > 0)) return false;
  return true;
}

// JSON of a Set (the --queues names): its sorted members.
function setsSorted(_key: string, value: unknown): unknown {
  return value instanceof Set ? [...value].sort() : value;
}
