// Turns a shrunk counterexample into files a person can act on: the trace as
// a DR_EVT CSV (and the capacity schedule, if any) for the CLI view, the exact
// case as JSON, and a note with the property, the seed and path, and the
// commands that reproduce the failure.

import { capacityCsv, counterexampleReport, quote, traceCsv } from "../testing/_counterexample.ts";
import type { FuzzCase } from "./properties.ts";

// The formatting lives in testing/ (published), so that `fuzzScheduler`
// returns the same report; these names stay importable from here.
export {
  capacityCsv,
  cliOptions,
  csvNumber,
  TRACE_HEADER,
  traceCsv,
} from "../testing/_counterexample.ts";

/** A failed property, as the runner found it. */
export interface Failure {
  readonly property: string;
  readonly description: string;
  /** fast-check seed of the run that failed. */
  readonly seed: number;
  /** fast-check path of the shrunk counterexample (replay with seed + path). */
  readonly path: string;
  readonly numRuns: number;
  readonly numShrinks: number;
  /** What the property said (the error message). */
  readonly error: string;
  readonly counterexample: FuzzCase;
}

/** The files written for a failure and the note printed for it. */
export interface WrittenCounterexample {
  readonly tracePath: string;
  readonly capacityPath?: string;
  readonly casePath: string;
  readonly notePath: string;
  /** The note's text (also the `.txt` file's content). */
  readonly note: string;
}

/** The command that replays the failing case through the fuzz runner. */
export function replayCommand(f: Pick<Failure, "property" | "seed" | "path">): string {
  return `deno task fuzz --only ${quote(f.property)} --seed ${f.seed} --path ${quote(f.path)}`;
}

/**
 * Writes the counterexample of `f` into `dir` (created if missing) as
 * `<property>-<seed>.csv` (trace), `-capacity.csv` (if the case has a capacity
 * schedule), `.json` (the exact case) and `.txt` (the note).
 */
export async function writeCounterexample(dir: string, f: Failure): Promise<WrittenCounterexample> {
  await Deno.mkdir(dir, { recursive: true });
  const stem = `${dir.replace(/\/+$/, "")}/${f.property}-${f.seed}`;
  const c = f.counterexample;
  const trace = traceCsv(c.trace);
  const tracePath = `${stem}.csv`;
  await Deno.writeTextFile(tracePath, trace.text);
  const schedule = c.config.capacitySchedule ?? [];
  const capacityPath = schedule.length > 0 ? `${stem}-capacity.csv` : undefined;
  if (capacityPath !== undefined) await Deno.writeTextFile(capacityPath, capacityCsv(schedule));
  const casePath = `${stem}.json`;
  await Deno.writeTextFile(casePath, JSON.stringify(c, null, 2) + "\n");

  const { text: note } = counterexampleReport({
    ...f,
    config: c.config,
    trace: c.trace,
    live: c.plan !== undefined && c.plan.length > 0,
    tracePath,
    capacityPath,
    files: [
      ["trace", tracePath],
      ...(capacityPath !== undefined ? [["capacity schedule", capacityPath] as const] : []),
      ["exact case", casePath],
    ],
    reproduce: replayCommand(f),
  });
  const notePath = `${stem}.txt`;
  await Deno.writeTextFile(notePath, note);
  return { tracePath, capacityPath, casePath, notePath, note };
}
