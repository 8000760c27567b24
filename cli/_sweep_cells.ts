// One cell of a sweep: `evtsim sweep-cell SPEC --cell INDEX --results DIR`.
// Both executors run a cell through this command (the local one as a child
// process, Slurm as an array task), so a cell's result file is written by the
// same code wherever it runs. The cell is the ordinary `simulate` command
// with the cell's options, its outputs dropped in memory
// (cli/_cell_outputs.ts) and run stats-only: the figures the row reads are
// the values its statistics JSON would hold (as they read back from it), so
// a row can never disagree with `evtsim simulate --stats_json` run by hand
// with the same options.

import { EvtsimError } from "../core/errors.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import { figuresJson, KeepOneOutput } from "./_cell_outputs.ts";
import { type Console, simulateCommand, type SimulateRunDeps } from "./simulate.ts";
import { type CellResult, type CellStats, rowOf, writeCellResult } from "./_sweep_results.ts";
import { type Cell, cellAt, type Sweep } from "./_sweep_model.ts";

/**
 * Runs `cell` and writes its result file into `dir`; returns the result. A
 * usage, input or file error fails the cell (its line is the result's
 * error); anything else is a bug: recorded as a failure, then rethrown.
 * `deps.load` lets the cells a process runs one after another share their
 * parsed traces (cli/_trace_cache.ts).
 */
export async function runCell(
  sweep: Sweep,
  cell: Cell,
  dir: string,
  con: Console,
  deps: Pick<SimulateRunDeps, "load"> = {},
): Promise<CellResult> {
  const started = performance.now();
  // The outputs go to a folder that is never made: the run's file system is
  // in memory (cli/_cell_outputs.ts), and the run hands its figures instead
  // of its statistics JSON.
  const folder = `${dir}/cells/.run-${cell.id}`;
  const fs = new KeepOneOutput(`${folder}/stats.json`);
  const wall = () => Math.round(performance.now() - started) / 1000;
  let stats: CellStats | undefined;
  let result: CellResult;
  try {
    await simulateCommand(
      [
        ...cell.args,
        `--outfile=${folder}/schedule.csv`,
        `--resource_trace=${folder}/resources.csv`,
        `--stats_json=${folder}/stats.json`,
        "--no_progress",
      ],
      { out: () => {}, err: con.err, isTerminal: false },
      {
        ...deps,
        fs,
        // As they read back from the JSON (where an infinite or NaN figure is null).
        figures: (f) => stats = JSON.parse(figuresJson(f)),
      },
    );
    result = {
      id: cell.id,
      index: cell.index,
      status: "ok",
      row: rowOf(cell, sweep.optionKeys, stats!),
      wall_seconds: wall(),
    };
  } catch (e) {
    const known = e instanceof EvtsimError || isFsError(e);
    const error = e instanceof EvtsimError
      ? e.message
      : isFsError(e)
      ? describeFsError(e)
      : `internal error: ${(e as Error)?.message ?? String(e)}`.split("\n")[0];
    result = { id: cell.id, index: cell.index, status: "failed", error, wall_seconds: wall() };
    if (!known) {
      writeCellResult(dir, result);
      throw e;
    }
  }
  writeCellResult(dir, result);
  return result;
}

/** The cell at index `raw` (computed from the spec's lists), or a usage error naming the valid range. */
export function cellOfArg(sweep: Sweep, raw: string): Cell {
  const index = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(index < sweep.count)) {
    throw new EvtsimError(
      "usage",
      `--cell expects an index from 0 to ${sweep.count - 1}, got '${raw}'`,
    );
  }
  return cellAt(sweep, index);
}
