// The Slurm executor: one sbatch job array, one array task per cell still to
// run, each task `evtsim sweep-cell SPEC --cell $SLURM_ARRAY_TASK_ID
// --results DIR`. Array indices are the cells' indices (their place in the
// spec's product order), so a task's index names its cell whatever subset is submitted.
// `evtsim sweep collect DIR` merges the result files afterwards.

import { EvtsimError } from "../core/errors.ts";
import { AtomicOutputSet } from "../io/atomic_writer.ts";
import type { Console } from "./simulate.ts";
import { checkRunPermission, selfCommand } from "./_sweep_local.ts";
import type { Sweep } from "./_sweep_model.ts";
import { prepareFolder } from "./_sweep_results.ts";

/**
 * Sorted indices as an sbatch `--array` list: runs become ranges.
 *
 * @example
 * ```ts
 * import { arrayList } from "./_sweep_slurm.ts";
 * console.assert(arrayList([0, 1, 2, 3, 4, 5]) === "0-5");
 * console.assert(arrayList([0, 2, 3, 4, 7]) === "0,2-4,7");
 * ```
 */
export function arrayList(indices: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < indices.length;) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j] + 1) j++;
    parts.push(j === i ? `${indices[i]}` : `${indices[i]}-${indices[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** A word quoted for the shell (only when it needs it). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The site's choices for the job array, as given on the command line. */
export interface ArrayChoices {
  readonly partition?: string;
  readonly maxParallel?: number;
  /** More sbatch options, one `#SBATCH` line each (see {@link sbatchOptionLines}). */
  readonly sbatchOptions?: readonly string[];
  /** The command line that runs evtsim (default: this Deno, flags and main.ts). */
  readonly evtsim?: string;
}

/** What the sbatch script is made of. */
export interface ScriptOptions extends ArrayChoices {
  /** Absolute results folder. */
  readonly dir: string;
  /** Absolute spec path. */
  readonly spec: string;
  /** Cell indices to run, ascending. */
  readonly indices: readonly number[];
  readonly totalCells: number;
  /** The folder the tasks start in (absolute). */
  readonly cwd: string;
}

/** The sbatch script of a sweep's job array. */
export function sbatchScript(o: ScriptOptions): string {
  const evtsim = o.evtsim ?? selfCommand().map(shellQuote).join(" ");
  const throttle = o.maxParallel === undefined ? "" : `%${o.maxParallel}`;
  return [
    "#!/bin/bash",
    "#SBATCH --job-name=evtsim-sweep",
    `#SBATCH --array=${arrayList(o.indices)}${throttle}`,
    `#SBATCH --output=${o.dir}/logs/%A_%a.out`,
    ...(o.partition === undefined ? [] : [`#SBATCH --partition=${o.partition}`]),
    ...(o.sbatchOptions ?? []).map((line) => `#SBATCH ${line}`),
    `# evtsim sweep: ${o.indices.length} of the ${o.totalCells} cells of ${o.spec}.`,
    `# Each array task runs the cell whose index is its task id; then run`,
    `#   evtsim sweep collect ${o.dir}`,
    "set -eu",
    `cd ${shellQuote(o.cwd)}`,
    `exec ${evtsim} sweep-cell ${shellQuote(o.spec)} --cell "$SLURM_ARRAY_TASK_ID" ` +
    `--results ${shellQuote(o.dir)}`,
    "",
  ].join("\n");
}

// Options the script sets itself: another value would break the cell <-> task mapping or the logs.
const OWN_SBATCH = /^(--array|-a|--output|-o|--parsable|--wrap)(=|$)/;

/**
 * `--sbatch_options` as `#SBATCH` lines: each word starting with `-` opens a
 * line, and the words after it (a value written with a blank) join it.
 *
 * @example
 * ```ts
 * import { sbatchOptionLines } from "./_sweep_slurm.ts";
 * const lines = sbatchOptionLines("--time 00:30:00 --account=proj -N 1");
 * console.assert(lines.join("|") === "--time 00:30:00|--account=proj|-N 1");
 * ```
 */
export function sbatchOptionLines(text: string | undefined): string[] {
  if (text === undefined) return [];
  const lines: string[] = [];
  for (const word of text.trim().split(/\s+/)) {
    if (word === "") continue;
    if (word.startsWith("-")) {
      if (OWN_SBATCH.test(word)) {
        throw new EvtsimError(
          "usage",
          `--sbatch_options: ${word.split("=")[0]} is set by the sweep itself`,
        );
      }
      lines.push(word);
    } else if (lines.length === 0) {
      throw new EvtsimError(
        "usage",
        `--sbatch_options expects sbatch options starting with '-', got '${word}'`,
      );
    } else lines[lines.length - 1] += ` ${word}`;
  }
  return lines;
}

/** The path of `command` on PATH, or undefined. */
export function onPath(command: string): string | undefined {
  for (const folder of (Deno.env.get("PATH") ?? "").split(":")) {
    if (folder === "") continue;
    const path = `${folder}/${command}`;
    try {
      const info = Deno.statSync(path);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return path;
    } catch { /* not here */ }
  }
  return undefined;
}

/** Submits `script` with sbatch; returns the job id. */
export async function submit(script: string): Promise<string> {
  let r: Deno.CommandOutput;
  try {
    r = await new Deno.Command("sbatch", {
      args: ["--parsable", script],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) throw noSbatch();
    throw e;
  }
  const d = new TextDecoder();
  if (r.code !== 0) {
    const why = d.decode(r.stderr).split("\n").find((l) => l.trim() !== "") ?? `exit ${r.code}`;
    throw new EvtsimError("input", `sbatch refused the job array: ${why.trim()}`, { file: script });
  }
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  const id = d.decode(r.stdout).trim().split(";")[0];
  if (!/^\d+$/.test(id)) {
    throw new EvtsimError("input", `sbatch printed no job id (got '${id}')`, { file: script });
  }
  return id;
}

/** The error when sbatch cannot be found. */
export function noSbatch(): EvtsimError {
  return new EvtsimError(
    "usage",
    "sbatch not found on PATH: --executor slurm needs a Slurm client (or use --dry_run)",
  );
}

/** The ids of the job arrays submitted for a results folder, one per line. */
const JOBS_FILE = "slurm_jobs";

/**
 * The first job this folder submitted that Slurm still lists (pending or
 * running tasks), or undefined. Without squeue nothing can be seen, so
 * nothing is refused.
 */
async function stillQueued(dir: string): Promise<string | undefined> {
  let ids: string[];
  try {
    ids = (await Deno.readTextFile(`${dir}/${JOBS_FILE}`)).split("\n").filter((l) => l !== "");
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
  for (const id of ids) {
    let r: Deno.CommandOutput;
    try {
      r = await new Deno.Command("squeue", {
        args: ["-h", "-j", id, "-o", "%i"],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      throw e;
    }
    // A job Slurm has forgotten makes squeue fail ("Invalid job id"): gone.
    if (r.code === 0 && new TextDecoder().decode(r.stdout).trim() !== "") return id;
  }
  return undefined;
}

/** What `sweep --executor slurm` was asked to do. */
export interface SlurmRun extends ArrayChoices {
  readonly sweep: Sweep;
  /** Absolute results folder, and as the user gave it. */
  readonly dir: string;
  readonly shown: string;
  /** The indices of the cells to submit, in order. */
  readonly todo: readonly number[];
  readonly retry: boolean;
  readonly dryRun: boolean;
}

/**
 * Writes the script into the results folder and submits it (or, with
 * --dry_run, prints it and writes nothing). sbatch is looked for before
 * anything is written, so a machine without Slurm is one line and no folder.
 */
export async function runSlurm(r: SlurmRun, con: Console): Promise<number> {
  if (!r.dryRun) {
    if (onPath("sbatch") === undefined) throw noSbatch();
    checkRunPermission("--executor slurm (to run sbatch)");
    if (/\s/.test(r.dir)) {
      // #SBATCH lines are not shell: a path with blanks would be cut there.
      throw new EvtsimError(
        "usage",
        `--executor slurm needs a results folder without blanks in its path (got '${r.dir}')`,
      );
    }
    const queued = await stillQueued(r.dir);
    if (queued !== undefined) {
      throw new EvtsimError(
        "usage",
        `job ${queued} of ${r.shown} is still in Slurm's queue: wait for it (squeue -j ${queued}) ` +
          `or cancel it (scancel ${queued}) before submitting more cells`,
      );
    }
  }
  const total = r.sweep.count;
  if (r.todo.length === 0) {
    con.out(
      r.retry
        ? `sweep: every one of the ${total} cells has a result and none failed: nothing to submit`
        : `sweep: every one of the ${total} cells has a result: nothing to submit ` +
          "(--retry_failed runs the failed ones again)",
    );
    return 0;
  }
  const { partition, maxParallel, sbatchOptions, evtsim } = r;
  const script = sbatchScript({
    dir: r.dir,
    spec: r.sweep.specPath,
    indices: r.todo,
    totalCells: total,
    partition,
    maxParallel,
    sbatchOptions,
    evtsim,
    cwd: Deno.cwd(),
  });
  if (r.dryRun) {
    for (const line of script.replace(/\n$/, "").split("\n")) con.out(line);
    return 0;
  }
  await prepareFolder(r.dir, r.sweep);
  await Deno.mkdir(`${r.dir}/logs`, { recursive: true });
  const path = `${r.dir}/sweep.sbatch`;
  const set = new AtomicOutputSet();
  try {
    set.open(path).text(script);
    set.commit();
  } catch (e) {
    set.abort();
    throw e;
  }
  const id = await submit(path);
  // Remembered so that a later submission can see this array still queued.
  await Deno.writeTextFile(`${r.dir}/${JOBS_FILE}`, `${id}\n`, { append: true });
  con.out(
    `Submitted batch job ${id}: ${r.todo.length} of the ${total} cells ` +
      `(array ${arrayList(r.todo)}), script ${r.shown}/sweep.sbatch`,
  );
  con.out(`Follow it with: squeue -j ${id}; then: evtsim sweep collect ${r.shown}`);
  return 0;
}
