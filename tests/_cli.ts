// Runs the `evtsim` command in-process with a console that keeps its lines.

import { main } from "../cli/main.ts";

/** What one command run printed, and its exit code. */
export interface Captured {
  code: number;
  out: string[];
  err: string[];
}

/** Runs `evtsim ARGS` and captures stdout and stderr lines. */
export async function runCli(args: string[]): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTerminal: false,
  });
  return { code, out, err };
}
