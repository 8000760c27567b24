// One long-lived worker of the local executor: `evtsim sweep-cell SPEC
// --stdin --results DIR`. It reads cell indices from stdin, one a line, runs
// each cell exactly as `sweep-cell --cell` does (same code, same result
// file), one after another, and prints `ok INDEX` or `failed INDEX` on
// stdout as each ends (after TAG when the line was `INDEX TAG`). Cells run in one process are warm: V8 has compiled the
// engine by the second cell, and each trace is parsed once
// (cli/_trace_cache.ts). A cell's failure is its own (its result says why);
// a bug or a crash ends the process, and the executor records the cell it
// was running and starts another worker for the rest.

import type { Console } from "./simulate.ts";
import { cellOfArg, runCell } from "./_sweep_cells.ts";
import { TraceCache } from "./_trace_cache.ts";
import { textLines } from "./_text_lines.ts";
import type { Sweep } from "./_sweep_model.ts";

/**
 * Runs the cells whose indices come on stdin until it closes (the sweep read
 * by `sweepOf` at the first); returns the exit code.
 */
export async function runCellsFromStdin(
  sweepOf: () => Promise<Sweep>,
  dir: string,
  con: Console,
): Promise<number> {
  const cache = new TraceCache();
  // Read when the first cell comes: the worker may be started before the
  // sweep has written its folder's record.
  let sweep: Sweep | undefined;
  for await (const line of textLines(Deno.stdin.readable)) {
    // INDEX, or INDEX TAG: the answer then starts with TAG, so that it cannot
    // be mistaken for a line a policy module printed.
    const [index, tag] = line.trim().split(/\s+/);
    if (index === "") continue;
    sweep ??= await sweepOf();
    const cell = cellOfArg(sweep, index);
    const r = await runCell(sweep, cell, dir, con, { load: cache.load });
    con.out(`${tag === undefined ? "" : `${tag} `}${r.status} ${cell.index}`);
  }
  return 0;
}
