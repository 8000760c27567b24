// The local executor: a pool of `--jobs N` child processes, each running
// `evtsim sweep-cell` for one cell, the very command a Slurm array task runs.
// A child per cell costs a Deno start (~0.1 s) but keeps cells apart (memory,
// global state, a crash) and makes the result files the same bytes however
// the cells were run. A failing cell is reported and the others go on.

import { EvtsimError } from "../core/errors.ts";
import { Progress, type ProgressSink } from "./progress.ts";
import { onShutdown } from "./_shutdown.ts";
import { childReaped, childSpawned } from "../io/_temporaries.ts";
import type { Console } from "./simulate.ts";
import { type CellResult, readCellResult, writeCellResult } from "./_sweep_results.ts";
import { type Cell, cellAt, type Sweep } from "./_sweep_model.ts";

/**
 * The `evtsim` task's permissions: what a cell's simulate run may need. V8
 * runs single-threaded: cells already fill the cores (here --jobs of them,
 * on Slurm one task per CPU), and V8's background GC and compiler threads
 * then only compete with the other cells (on 2 cores, 8 KTH cells with
 * --jobs 2 went from 1.2x to 1.6-1.8x the speed of --jobs 1).
 */
const PERMISSIONS = [
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-sys",
  "--allow-net",
  "--v8-flags=--max-semi-space-size=32,--single-threaded",
];

/**
 * The argv of this very `evtsim` (Deno's path first): the same permissions
 * as the `evtsim` task, this checkout's deno.json for the npm imports, and
 * this main module.
 */
export function selfCommand(): string[] {
  const main = new URL("./main.ts", import.meta.url);
  const argv = [Deno.execPath(), "run", "--quiet", ...PERMISSIONS];
  if (main.protocol !== "file:") return [...argv, main.href];
  const config = decodeURIComponent(new URL("../deno.json", import.meta.url).pathname);
  try {
    if (Deno.statSync(config).isFile) argv.push("--config", config);
  } catch { /* a copy without deno.json: Deno finds its own */ }
  return [...argv, decodeURIComponent(main.pathname)];
}

/** Refuses to start without the permission to run the cells' processes. */
export function checkRunPermission(what: string): void {
  if (Deno.permissions.querySync({ name: "run" }).state !== "granted") {
    throw new EvtsimError(
      "usage",
      `${what} needs --allow-run (the evtsim task and 'deno task install' grant it)`,
    );
  }
}

/** Runs the cells at indices `todo` with `jobs` processes at once; returns the failed cells' results. */
export async function runLocal(
  sweep: Sweep,
  dir: string,
  todo: readonly number[],
  jobs: number,
  con: Console,
  showProgress: boolean,
  sink?: ProgressSink,
): Promise<CellResult[]> {
  const argv = selfCommand();
  const progress = new Progress("sweep", todo.length, showProgress, sink, "cells");
  const failed: CellResult[] = [];
  // SIGINT/SIGTERM to the sweep stop its cells too (cli/_supervise.ts is
  // told of each one; on the main thread cli/main.ts runs this hook): a cell
  // stopped leaves no result, so a rerun runs it.
  const live = new Set<Deno.ChildProcess>();
  onShutdown(() => {
    for (const child of live) {
      try {
        child.kill("SIGTERM");
      } catch { /* it has just ended */ }
    }
  });
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < todo.length) {
      const cell = cellAt(sweep, todo[next++]);
      const r = await runChild(argv, sweep, dir, cell, live);
      done++;
      if (r === undefined) {
        // The sweep is being stopped (or the cell was): start no more cells.
        next = todo.length;
        progress.done();
        con.err(
          `evtsim: sweep: cell ${cell.index} (${cell.id}) was interrupted: no result (a rerun runs it)`,
        );
      } else if (r.status === "failed") {
        failed.push(r);
        progress.done();
        con.err(`evtsim: sweep: cell ${cell.index} (${cell.id}) failed: ${r.error}`);
      }
      progress.update(done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, todo.length)) }, worker));
  progress.done();
  return failed.sort((a, b) => a.index - b.index);
}

async function runChild(
  argv: readonly string[],
  sweep: Sweep,
  dir: string,
  cell: Cell,
  live: Set<Deno.ChildProcess>,
): Promise<CellResult | undefined> {
  const started = performance.now();
  const child = new Deno.Command(argv[0], {
    args: [
      ...argv.slice(1),
      "sweep-cell",
      sweep.specPath,
      "--cell",
      String(cell.index),
      "--results",
      dir,
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  live.add(child);
  childSpawned(child.pid);
  const r = await child.output();
  live.delete(child);
  childReaped(child.pid);
  const result = await readCellResult(dir, cell);
  if (result !== undefined) return result;
  // Stopped by SIGINT/SIGTERM (the sweep's, or a terminal's Ctrl-C to the
  // whole group): no result, so that a rerun runs the cell.
  if (
    r.signal === "SIGINT" || r.signal === "SIGTERM" || r.code === 130 || r.code === 143
  ) return undefined;
  // The process died before it wrote a result (killed, out of memory, a
  // broken install): record that, so --retry_failed picks the cell up.
  const lines = new TextDecoder().decode(r.stderr).split("\n").filter((l) => l.trim() !== "");
  const last = lines.findLast((l) => !/^\s+at /.test(l)) ?? "";
  const failed: CellResult = {
    id: cell.id,
    index: cell.index,
    status: "failed",
    error: `the cell's process exited with ${r.signal ?? `code ${r.code}`}` +
      (last === "" ? "" : `: ${last.replace(/^evtsim: /, "")}`),
    wall_seconds: Math.round(performance.now() - started) / 1000,
  };
  writeCellResult(dir, failed);
  return failed;
}
