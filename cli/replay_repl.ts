// `evtsim replay FILE --interactive` (`-i`): the REPL's input and files.
// Lines come from stdin: on a terminal through node:readline (line editing,
// command history, the `(sim) ` prompt, Ctrl-C stops a running `continue`
// and leaves at the prompt); from a pipe one line at a time, each echoed
// after the prompt so that the output reads as a transcript. The commands
// themselves are cli/_repl_commands.ts.

import type { Resimulation } from "../api/resimulation.ts";
import { describeFsError } from "../io/fs_errors.ts";
import { checkOutputPath, type NamedPath } from "./paths.ts";
import { Repl, type ReplIO } from "./_repl_commands.ts";
import { Stepper } from "./_repl_stepper.ts";
import { ReplError, type ReplOutput } from "./_repl_types.ts";
import type { Console } from "./simulate.ts";

/** The prompt, the seed interface's (docs/seed-003-mapping.md, "REPL commands"). */
export const PROMPT = "(sim) ";

/** How the REPL starts. */
export interface ReplStart {
  /** The log's path, for messages. */
  readonly file: string;
  /** Sessions of history kept for `back`. */
  readonly history: number;
  readonly speed: number;
  readonly verify: boolean;
  /** `--output`: written from the start, as `set output` would. */
  readonly output?: string;
  /** The files the replay reads: `snapshot FILE` and `set output FILE` may not name one. */
  readonly inputs?: readonly NamedPath[];
}

const encoder = new TextEncoder();

/** An output file for `set output`: created or truncated, cut back on `back`. */
export function fileOutput(path: string): ReplOutput {
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(path, { write: true, create: true, truncate: true });
  } catch (e) {
    throw new ReplError(`cannot write ${path}: ${describeFsError(e)}`);
  }
  const fail = (e: unknown): never => {
    throw new ReplError(`cannot write ${path}: ${describeFsError(e)}`);
  };
  return {
    path,
    write(text: string): number {
      const bytes = encoder.encode(text);
      try {
        for (let off = 0; off < bytes.length;) off += f.writeSync(bytes.subarray(off));
      } catch (e) {
        fail(e);
      }
      return bytes.length;
    },
    truncate(n: number): void {
      try {
        f.truncateSync(n);
        f.seekSync(n, Deno.SeekMode.Start);
      } catch (e) {
        fail(e);
      }
    },
    close(): void {
      try {
        f.close();
      } catch { /* closed already */ }
    },
  };
}

/** Writes a whole file through a temporary name, so that a failure leaves nothing. */
function writeWhole(path: string, text: string): void {
  const tmp = `${path}.tmp-${Deno.pid}`;
  try {
    Deno.writeTextFileSync(tmp, text);
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch { /* never written */ }
    throw new ReplError(`cannot write ${path}: ${describeFsError(e)}`);
  }
}

/** The REPL's side effects on the real process; no output may be one of `inputs`. */
export function processReplIO(con: Console, inputs: readonly NamedPath[] = []): ReplIO {
  return {
    print: (line) => con.out(line),
    // The one output rule (cli/paths.ts); its error is the REPL's one line and the REPL goes on.
    openOutput: (path) => {
      checkOutputPath("set output", path, inputs);
      return fileOutput(path);
    },
    writeFile: (path, text) => {
      checkOutputPath("snapshot", path, inputs);
      writeWhole(path, text);
    },
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/** Lines of a byte stream (a pipe), without their line ends. */
export async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    for (let nl = rest.indexOf("\n"); nl >= 0; nl = rest.indexOf("\n")) {
      yield rest.slice(0, nl).replace(/\r$/, "");
      rest = rest.slice(nl + 1);
    }
  }
  if (rest !== "") yield rest;
}

/**
 * Runs the REPL over a re-simulation until `quit` or the end of the input;
 * returns the exit status (3 when verify is on and decisions differ).
 * `input` replaces stdin (tests); without it a terminal gets node:readline.
 */
export async function runRepl(
  sim: Resimulation,
  con: Console,
  start: ReplStart,
  input?: AsyncIterable<string>,
  io: ReplIO = processReplIO(con, start.inputs),
): Promise<number> {
  const repl = new Repl(new Stepper(sim, start.history), io, start.file, start.speed);
  repl.stepper.verify = start.verify;
  for (const line of repl.banner()) io.print(line);
  if (start.output !== undefined) await repl.run(`set output ${start.output}`);
  try {
    if (input === undefined && Deno.stdin.isTerminal()) await terminal(repl);
    else {
      for await (const line of input ?? linesOf(Deno.stdin.readable)) {
        io.print(`${PROMPT}${line}`);
        if (await repl.run(line) === "quit") break;
      }
    }
  } finally {
    repl.stepper.closeOutput();
  }
  const at = repl.stepper.at;
  return repl.stepper.verify && at.mismatches > 0 ? 3 : 0;
}

// A terminal: node:readline for line editing and history; Ctrl-C stops a
// running command, or leaves at the prompt.
async function terminal(repl: Repl): Promise<void> {
  const readline = await import("node:readline");
  const process = (await import("node:process")).default;
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    prompt: PROMPT,
    terminal: true,
    historySize: 1000,
  });
  let busy = false;
  rl.on("SIGINT", () => {
    if (busy) repl.interrupt();
    else rl.close();
  });
  rl.prompt();
  for await (const line of rl) {
    busy = true;
    const r = await repl.run(line);
    busy = false;
    if (r === "quit") break;
    rl.prompt();
  }
  rl.close();
}
