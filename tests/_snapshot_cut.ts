// A run fed input by input, with its state saved to a JSON snapshot and
// loaded back before input `cut` (-1: never): the rows of both must agree
// when snapshots carry everything a run needs (a picker's memory included).

import {
  initialState,
  type Input,
  type JobRow,
  loadSnapshot,
  type ResourceRow,
  saveSnapshot,
  type SimulationConfig,
  step,
} from "../mod.ts";

/** The rows of `inputs` stepped from `config`, through a JSON snapshot before input `cut`. */
export function rowsThroughSnapshot(
  config: SimulationConfig,
  inputs: readonly Input[],
  cut: number,
): { jobs: JobRow[]; resources: ResourceRow[] } {
  let s = initialState(config);
  const jobs: JobRow[] = [];
  const resources: ResourceRow[] = [];
  inputs.forEach((input, i) => {
    if (i === cut) s = loadSnapshot(JSON.parse(JSON.stringify(saveSnapshot(s))));
    const r = step(s, input);
    jobs.push(...r.rows.jobs);
    resources.push(...r.rows.resources);
    s = r.state;
  });
  return { jobs, resources };
}
