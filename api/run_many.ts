// Many simulations of one loaded trace: what a notebook comparing policies,
// or a service answering "what if" for a whole grid, does. The trace is
// parsed (or built) once by the caller and shared by every run: the engine
// copies each job into its own store and never changes the specs, so the runs
// are independent and each equals a `Simulation` of that configuration alone.
// They run one after another in this isolate, so every run after the first
// finds the engine compiled and optimised by V8 (a hot KTH run takes a
// quarter of a cold one's time).

import { EvtsimError } from "../core/errors.ts";
import type { JobSpec } from "../core/types.ts";
import { Simulation, type SimulationOptions, type SimulationOutput } from "./simulation.ts";

/** One configuration of {@link runMany}: a {@link Simulation}'s options without a trace. */
export type RunConfig = Omit<SimulationOptions, "jobs">;

/**
 * Simulates `jobs` (sorted by submit time, as the trace readers give them)
 * once under each of `configs`, one after another in this isolate, and
 * returns the outputs in the order of `configs`. Each output is what
 * `new Simulation(config)`, `appendJobs(jobs)`, then `finish()` returns: the
 * same rows and statistics as one run alone. The
 * trace is shared, not copied; a bad configuration or job throws the
 * `EvtsimError` that one run would, naming the configuration's index.
 * `onResult`, when given, is handed each output as its run ends and the
 * output is then not kept (the returned array is empty), so a long grid
 * holds one run's rows at a time.
 *
 * @example
 * ```ts
 * import { runMany } from "@evtsim/evtsim";
 * const jobs = [
 *   { submitTime: 0, numNodes: 8, timeLimit: 100 },
 *   { submitTime: 1, numNodes: 6, timeLimit: 100 },
 *   { submitTime: 2, numNodes: 2, timeLimit: 50 },
 * ];
 * const [none, easy] = runMany(jobs, [
 *   { totalNodes: 10, backfillPolicy: "none" },
 *   { totalNodes: 10, backfillPolicy: "easy" },
 * ]);
 * // EASY backfills the 2-node job into the 2 idle nodes; without backfilling it waits.
 * if (none.jobs[2].beginTime !== 100 || easy.jobs[2].beginTime !== 2) throw new Error("backfill");
 * ```
 */
export function runMany(
  jobs: readonly JobSpec[],
  configs: readonly RunConfig[],
  onResult?: (output: SimulationOutput, index: number) => void,
): SimulationOutput[] {
  if (!Array.isArray(configs)) {
    throw new EvtsimError("usage", "runMany: configs: expected an array of configurations");
  }
  const outputs: SimulationOutput[] = [];
  configs.forEach((config, index) => {
    let output: SimulationOutput;
    try {
      const sim = new Simulation(config);
      sim.appendJobs(jobs);
      output = sim.finish();
    } catch (e) {
      if (e instanceof EvtsimError) {
        throw new EvtsimError(e.kind, `runMany: configuration ${index}: ${e.message}`);
      }
      throw e;
    }
    if (onResult !== undefined) onResult(output, index);
    else outputs.push(output);
  });
  return outputs;
}
