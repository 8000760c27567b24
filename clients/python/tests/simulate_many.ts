// Runs several `evtsim simulate` commands in one Deno process (the Python tests' reference
// schedules: one process start instead of one per run). Usage:
//   deno run -A clients/python/tests/simulate_many.ts RUNS.json
// RUNS.json: an array of argument lists, e.g. [["simulate", "in.csv", "-n", "100", "-o", "out.csv"]].
// Prints one line per run: its exit code; a run that fails also prints its error lines.

import { main } from "../../../cli/main.ts";

const runs: string[][] = JSON.parse(await Deno.readTextFile(Deno.args[0]));
for (const args of runs) {
  const err: string[] = [];
  const code = await main(args, { out: () => {}, err: (l) => err.push(l), isTerminal: false });
  console.log(code === 0 ? "0" : `${code} ${args.join(" ")}: ${err.join(" | ")}`);
}
