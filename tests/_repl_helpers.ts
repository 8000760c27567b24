// Helpers of the REPL tests: logs to replay (the queued demo, a small live
// session with every kind of live event), and the REPL run in-process with
// its lines given, its transcript cut into one block per command.

import { replayCommand } from "../cli/replay_command.ts";
import { Simulation } from "../mod.ts";
import { runCli } from "./_cli.ts";
import { assert, assertEquals } from "./_assert.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/**
 * Issue 12's acceptance walk on the demo log: write the decisions to `out`,
 * break on job 3's DISPATCH, see it wait, step it to running, go back one
 * step (waiting again), then run to the end.
 */
export function dispatchWalk(out: string): string[] {
  return [
    `set output ${out}`,
    "break DECISION type=DISPATCH job=3",
    "continue",
    "info job 3",
    "step",
    "info job 3",
    "back 1",
    "info job 3",
    "continue",
  ];
}

/** Records the queued demo run (2000 jobs, queues pbatch and pdebug) into `dir/base.replay`. */
export async function recordDemo(dir: string): Promise<string> {
  const log = `${dir}/base.replay`;
  const r = await runCli([
    "simulate",
    `${ROOT}examples/demo_queues_trace.csv`,
    "-n",
    "128",
    "--queues",
    `${ROOT}examples/demo_queues.yaml`,
    "-o",
    `${dir}/base.csv`,
    "--no_progress",
    "--record",
    log,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return log;
}

/**
 * Records a small live session with a queue update, a job update, a cancel
 * and a failed end (4 nodes, queues a and b) into `dir/live.replay`.
 */
export async function recordLiveEvents(dir: string): Promise<string> {
  let text = "";
  const sim = new Simulation({
    totalNodes: 4,
    queues: [{ name: "a" }, { name: "b", maxRunning: 1 }],
  });
  sim.startRecording({ write: (t) => void (text += t) });
  const job = (submitTime: number, numNodes: number, queue: string) => ({
    submitTime,
    numNodes,
    timeLimit: 10,
    actualRunTime: 8,
    queue,
  });
  sim.appendJobs([job(0, 4, "a"), job(1, 2, "a"), job(2, 2, "b"), job(3, 1, "b"), job(4, 1, "a")]);
  sim.advanceTo(1);
  sim.updateQueue({ name: "b", priority: 3 }, 2);
  sim.updateJob(1, { priority: 5 }, 2);
  sim.cancelJob(3, 4);
  sim.endJob(0, 5, { outcome: "failed" });
  sim.runToCompletion();
  sim.stopRecording();
  const log = `${dir}/live.replay`;
  await Deno.writeTextFile(log, text);
  return log;
}

/** One command of a transcript and the lines it printed. */
export interface Block {
  readonly command: string;
  readonly lines: string[];
}

/** A REPL run: exit code, the lines before the first prompt, one block per command, stderr. */
export interface ReplRun {
  readonly code: number;
  readonly banner: string[];
  readonly blocks: Block[];
  readonly err: string[];
  /** The lines printed by the first command that is exactly `command` (throws if none). */
  of(command: string, nth?: number): string[];
}

/** Cuts a transcript (echoed `(sim) ` lines) into blocks. */
export function transcript(code: number, out: readonly string[], err: string[]): ReplRun {
  const banner: string[] = [];
  const blocks: Block[] = [];
  for (const line of out.flatMap((l) => l.split("\n"))) {
    if (line.startsWith("(sim) ")) blocks.push({ command: line.slice(6), lines: [] });
    else if (blocks.length === 0) banner.push(line);
    else blocks[blocks.length - 1].lines.push(line);
  }
  return {
    code,
    banner,
    blocks,
    err,
    of(command: string, nth = 0): string[] {
      const found = blocks.filter((b) => b.command === command)[nth];
      assert(found !== undefined, `no command '${command}' (#${nth}) in the transcript`);
      return found.lines;
    },
  };
}

/** Runs `evtsim replay LOG -i ARGS` in-process with these lines as its input. */
export async function repl(
  log: string,
  lines: readonly string[],
  args: readonly string[] = [],
): Promise<ReplRun> {
  const out: string[] = [];
  const err: string[] = [];
  async function* input() {
    for (const l of lines) yield l;
  }
  const code = await replayCommand([log, "-i", ...args], {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTerminal: false,
  }, input());
  return transcript(code, out, err);
}

/** Asserts that a command printed exactly one line, an error containing `text`. */
export function assertOneError(lines: readonly string[], text: string): void {
  assertEquals(lines.length, 1, lines.join("\n"));
  assert(lines[0].startsWith("error: ") && lines[0].includes(text), lines[0]);
}

/**
 * Records `trace` run on examples/gpu_machine.yaml (schedule `dir/s.csv`,
 * log `dir/g.replay`), with `extra` options; gives the log's path.
 */
export async function recordMachineRun(
  dir: string,
  trace: string,
  extra: string[] = [],
): Promise<string> {
  const log = `${dir}/g.replay`;
  const sim = await runCli([
    "simulate",
    trace,
    "--machine",
    `${ROOT}examples/gpu_machine.yaml`,
    ...extra,
    "-o",
    `${dir}/s.csv`,
    "--record",
    log,
    "--no_progress",
  ]);
  assertEquals(sim.code, 0, sim.err.join("\n"));
  return log;
}
