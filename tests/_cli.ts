// Runs the `evtsim` command in-process (with a console that keeps its lines)
// or as a real process (`deno run cli/main.ts`). Every run's stderr is
// checked for stack frames at once, and also appended to a per-process log
// that tests/after_run/ scans once the suite has ended, so no
// CLI test anywhere can print a stack trace unnoticed.

import { main, type SimulateDeps } from "../cli/main.ts";
import { RUN_TMPDIR, STACK_FRAME, stderrLogPath } from "./_temp_root.ts";

/** What one command run printed, and its exit code. */
export interface Captured {
  code: number;
  out: string[];
  err: string[];
}

/** The repository root (with a trailing slash). */
export const ROOT = new URL("../", import.meta.url).pathname;

/** A stack frame line as V8 prints it. */
export { STACK_FRAME };

/** Where every CLI run of this test process records its stderr (JSON lines). */
export const STDERR_LOG = stderrLogPath();

// The log is read by tests/after_run/ (tests/_run_tests.ts runs it after the
// suite, in the run's temp folder); a file run without the preload
// writes none (it would be left in the shared temp folder).
const KEEP_LOG = (() => {
  try {
    return (Deno.env.get(RUN_TMPDIR) ?? "") !== "";
  } catch {
    return false;
  }
})();

function record(args: readonly string[], err: readonly string[], how: string): void {
  if (KEEP_LOG) {
    Deno.writeTextFileSync(
      STDERR_LOG,
      JSON.stringify({ how, args, stderr: err.join("\n") }) + "\n",
      { append: true },
    );
  }
  const text = err.join("\n");
  if (STACK_FRAME.test(text)) {
    throw new Error(`evtsim ${args.join(" ")} printed a stack trace:\n${text}`);
  }
}

/**
 * Runs `evtsim ARGS` in-process and captures stdout and stderr lines. An
 * exception escaping `main` is what the real command would print as an
 * uncaught error with its stack: it is captured as such (and fails the run's
 * stack-frame check).
 */
export async function runCli(args: string[], deps: SimulateDeps = {}): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  let code: number;
  try {
    code = await main(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      isTerminal: false,
    }, deps);
  } catch (e) {
    err.push(`error: Uncaught ${e instanceof Error ? e.stack : String(e)}`);
    code = 1;
  }
  record(args, err, "in-process");
  return { code, out, err };
}

/** Options of {@link runCliProcess}. */
export interface ProcessOptions {
  /** Working directory (default: the test's). */
  readonly cwd?: string;
  /** Extra environment variables. */
  readonly env?: Record<string, string>;
  /** Text for its stdin (default: none, stdin is closed). */
  readonly input?: string;
}

const lines = (bytes: Uint8Array) => {
  const text = new TextDecoder().decode(bytes);
  return text === "" ? [] : text.replace(/\n$/, "").split("\n");
};

/** The argv of a real `evtsim` process (deno run with the task's permissions). */
export function cliCommand(args: readonly string[]): string[] {
  return [
    "run",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    "--allow-sys",
    // `sweep` runs its cells (and sbatch) as processes.
    "--allow-run",
    // --redis_uri connects to a Redis server.
    "--allow-net",
    "--config",
    `${ROOT}deno.json`,
    `${ROOT}cli/main.ts`,
    ...args,
  ];
}

/** Runs `evtsim ARGS` as a real process; stderr is checked and recorded. */
export async function runCliProcess(args: string[], o: ProcessOptions = {}): Promise<Captured> {
  const command = new Deno.Command(Deno.execPath(), {
    args: cliCommand(args),
    cwd: o.cwd,
    env: o.env,
    stdin: o.input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  });
  let r: Deno.CommandOutput;
  if (o.input === undefined) r = await command.output();
  else {
    const child = command.spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(o.input));
    await w.close();
    r = await child.output();
  }
  const err = lines(r.stderr);
  record(args, err, "process");
  return { code: r.code, out: lines(r.stdout), err };
}

/** Records a process run made some other way (signals, closed pipes). */
export function recordProcessRun(args: readonly string[], stderr: string): void {
  record(args, stderr === "" ? [] : stderr.replace(/\n$/, "").split("\n"), "process");
}

/**
 * Live processes whose command line names `d` (a sweep's workers, a
 * command's children), by pid. Asked of `ps`: reading /proc needs
 * --allow-all, which the test task does not give.
 */
export async function processesIn(d: string): Promise<number[]> {
  const r = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="], stdout: "piped" })
    .output();
  const pids: number[] = [];
  for (const line of new TextDecoder().decode(r.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (m !== null && m[3].includes(d) && !m[2].startsWith("Z")) pids.push(Number(m[1]));
  }
  return pids;
}

/** {@link runCli}, its output and errors as non-empty lines (a captured line may hold several). */
export async function runCliLines(args: string[]): Promise<Captured> {
  const r = await runCli(args);
  const lines = (l: string[]) => l.join("\n").split("\n").filter((s) => s !== "");
  return { code: r.code, out: lines(r.out), err: lines(r.err) };
}
