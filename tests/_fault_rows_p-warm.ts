// Fault rows of issue 34 item 1 (warm workers: sweep, compare, runMany).

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { runCli } from "./_cli.ts";
import { runMany } from "../api/run_many.ts";

const cli = async (args: string[]) => {
  const r = await runCli(args);
  return { code: r.code, error: r.err.join("\n") };
};

export const WARM_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "compare --jobs 0",
    run: (dir) => cli(["compare", `${dir}/t.csv`, "--jobs", "0"]),
    expected: /^evtsim: --jobs expects a positive integer, got '0'$/,
  },
  {
    surface: "in-process",
    input: "compare on two workers: a trace with a bad header (each worker's run fails)",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/t.csv`, "a,b\n1,2\n");
      return cli(["compare", `${dir}/t.csv`, "-n", "8", "--policies", "none,easy", "--jobs", "2"]);
    },
    expected: /^evtsim: \S*t\.csv:1: job_submit_time: expected this column in the header/,
  },
  {
    surface: "in-process",
    input: "sweep-cell with both --cell and --stdin",
    run: (dir) => cli(["sweep-cell", `${dir}/s.yaml`, "--cell", "0", "--stdin", "--results", dir]),
    expected: /^evtsim: usage: evtsim sweep-cell SPEC \(--cell INDEX \| --stdin\) --results DIR$/,
  },
  {
    surface: "library",
    input: "runMany: the second configuration has a negative machine size",
    run: () => {
      try {
        runMany([{ submitTime: 0, numNodes: 1, timeLimit: 5 }], [
          { totalNodes: 4 },
          { totalNodes: -1 },
        ]);
      } catch (e) {
        return Promise.resolve({ code: 1, error: (e as Error).message });
      }
      return Promise.resolve({ code: 0, error: "" });
    },
    expected: /^runMany: configuration 1: total nodes must be a positive integer.*got -1$/,
  },
];
