// Fault rows of issue 28's allocations in outputs (branch m-alloc): the
// resource timeline's columns option and the hostlist reader.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, library } from "./_input_faults.ts";
import { expandHostlist } from "../io/hostlist.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** Allocations in outputs: nodes column, per-resource timeline, info node. */
export const ALLOC_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "simulate --resource_columns wide (not a layout)",
    run: (dir) =>
      cli([
        "simulate",
        `${ROOT}examples/demo_trace.csv`,
        "-n",
        "128",
        "-o",
        `${dir}/s.csv`,
        "--resource_columns",
        "wide",
      ]),
    expected: /--resource_columns: unknown value 'wide' \(expected drevt, per_resource\)/,
  },
  {
    surface: "library",
    input: "expandHostlist: a range that ends before it starts",
    run: () => Promise.resolve(library(() => expandHostlist("n[009-001]"))),
    expected: /hostlist "n\[009-001\]": range '009-001' ends before it starts/,
  },
  {
    surface: "library",
    input: "expandHostlist: an unclosed bracket",
    run: () => Promise.resolve(library(() => expandHostlist("n[001-004"))),
    expected: /hostlist "n\[001-004": a '\[' without '\]'/,
  },
];
