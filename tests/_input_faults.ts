// Inputs of the fault catalogue's oversized and malicious-input rows
// (issue 32 items 9, 11, 16, 23): deeply nested JSON, YAML alias bombs, and
// the runs that feed them through each surface.

import { EvtsimError } from "../core/errors.ts";
import { ROOT, runCli, runCliProcess } from "./_cli.ts";
import { GrpcSession, type Reply, withServer } from "./_service_helpers.ts";

/** What a fault gave (the catalogue's FaultOutcome). */
export interface Outcome {
  readonly code: number;
  readonly error: string;
}

/** JSON text of `{"a": {"a": ... 1}}`, `depth` objects deep. */
export function deepJsonText(depth: number): string {
  return '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
}

/** The value of {@link deepJsonText}. */
export function deepJson(depth: number): unknown {
  return JSON.parse(deepJsonText(depth));
}

/** Nesting that overflowed the stack before the bound (and fits serve's 1 MB body). */
export const DEEP = 100_000;

/**
 * A YAML "billion laughs": each anchor a list of nine aliases of the one
 * before, so the last one expands to 9^7 strings.
 */
export const ALIAS_BOMB = [
  'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...["b", "c", "d", "e", "f", "g"].map((k, i) => {
    const prev = "abcdefg"[i];
    return `${k}: &${k} [${Array(9).fill(`*${prev}`).join(",")}]`;
  }),
  "",
].join("\n");

/** A library call: an EvtsimError is code 1 and its message; anything else code 99 with its stack. */
export function library(f: () => unknown): Outcome {
  try {
    f();
    return { code: 0, error: "" };
  } catch (e) {
    if (e instanceof EvtsimError) return { code: 1, error: e.message };
    return { code: 99, error: String((e as Error)?.stack ?? e) };
  }
}

/** As {@link library}, for a call that returns a promise. */
export async function libraryAsync(f: () => Promise<unknown>): Promise<Outcome> {
  try {
    await f();
    return { code: 0, error: "" };
  } catch (e) {
    if (e instanceof EvtsimError) return { code: 1, error: e.message };
    return { code: 99, error: String((e as Error)?.stack ?? e) };
  }
}

/** An in-process CLI run. */
export async function cli(args: string[]): Promise<Outcome> {
  const r = await runCli(args);
  return { code: r.code, error: r.err.join("\n") };
}

/** A CLI run as a real process. */
export async function cliProcess(args: string[]): Promise<Outcome> {
  const r = await runCliProcess(args);
  return { code: r.code, error: r.err.join("\n") };
}

// Runs `f` with console.error captured: what the server logs (a stack for
// an internal error) is part of the outcome.
async function logged<T>(f: () => Promise<T>): Promise<[T, string]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...a: unknown[]) => lines.push(a.map(String).join(" "));
  try {
    return [await f(), lines.join("\n")];
  } finally {
    console.error = original;
  }
}

/** Creates an HTTP session with `body`; the status, the error and whatever the server logged. */
export async function httpCreate(body: unknown): Promise<Outcome> {
  const [reply, log] = await logged(async () => {
    let r: Reply | undefined;
    await withServer({}, async (_server, api) => {
      r = await api.send("POST", "/sessions", body);
    });
    return r!;
  });
  return { code: reply.status, error: [reply.body?.error ?? "", log].join("\n") };
}

/** A gRPC `init` with `init`; code 1 for an ErrorResponse, the error and whatever the server logged. */
export async function grpcInit(init: Record<string, unknown>): Promise<Outcome> {
  const [reply, log] = await logged(async () => {
    // deno-lint-ignore no-explicit-any
    let r: any;
    await withServer({}, async (server) => {
      const g = new GrpcSession(server.grpcPort!);
      try {
        r = await g.request({ init: { total_nodes: 8, session_name: "deep", ...init } });
      } finally {
        await g.close();
      }
    });
    return r;
  });
  const error = reply.response === "error" ? reply.error.message : "";
  return { code: reply.response === "error" ? 1 : 0, error: [error, log].join("\n") };
}

/**
 * A recording of the demo trace in `dir` whose header and first snapshot
 * carry picker settings `depth` objects deep; returns its path.
 */
export async function deepRecording(dir: string, depth: number): Promise<string> {
  const r = await runCli([
    "simulate",
    `${ROOT}examples/demo_trace.csv`,
    "-n",
    "128",
    "-o",
    `${dir}/run.csv`,
    "--record",
    `${dir}/run.replay`,
  ]);
  if (r.code !== 0) throw new Error(r.err.join("\n"));
  const lines = (await Deno.readTextFile(`${dir}/run.replay`)).split("\n");
  const header = JSON.parse(lines[0]);
  header.config.pickerSettings = { x: 0 };
  const snapshot = JSON.parse(lines[1]);
  snapshot.state.config.pickerSettings = { x: 0 };
  lines[0] = JSON.stringify(header).replace('{"x":0}', `{"x":${deepJsonText(depth)}}`);
  lines[1] = JSON.stringify(snapshot).replace('{"x":0}', `{"x":${deepJsonText(depth)}}`);
  await Deno.writeTextFile(`${dir}/deep.replay`, lines.join("\n"));
  return `${dir}/deep.replay`;
}

/**
 * Writes a multi-member gzip file of `mib` MiB of ASCII zeros and no
 * newline (each member one MiB, so the file is about 1 KB per MiB): 600 MiB
 * outgrow the largest string the runtime holds.
 */
export async function zerosGzip(path: string, mib: number): Promise<void> {
  const { gzipSync } = await import("node:zlib");
  const member = gzipSync(new Uint8Array(1 << 20).fill(0x30));
  const out = new Uint8Array(member.length * mib);
  for (let i = 0; i < mib; i++) out.set(member, i * member.length);
  await Deno.writeFile(path, out);
}

/**
 * A finished run of the demo trace in `dir` (run.csv and run_resources.csv)
 * whose files are then edited by `edit` (line arrays, header first); returns
 * the schedule's path.
 */
export async function editedRun(
  dir: string,
  edit: { schedule?: (lines: string[]) => string[]; resources?: (lines: string[]) => string[] },
): Promise<string> {
  const r = await runCli([
    "simulate",
    `${ROOT}examples/demo_trace.csv`,
    "-n",
    "128",
    "-o",
    `${dir}/run.csv`,
  ]);
  if (r.code !== 0) throw new Error(r.err.join("\n"));
  for (
    const [file, f] of [["run.csv", edit.schedule], ["run_resources.csv", edit.resources]] as const
  ) {
    if (f === undefined) continue;
    const lines = (await Deno.readTextFile(`${dir}/${file}`)).split("\n");
    await Deno.writeTextFile(`${dir}/${file}`, f(lines).join("\n"));
  }
  return `${dir}/run.csv`;
}

/** `lines` with lines `i` and `i + 1` (0-based) joined, as a lost newline leaves them. */
export function merged(lines: string[], i: number): string[] {
  return [...lines.slice(0, i), lines[i] + lines[i + 1], ...lines.slice(i + 2)];
}

/** `lines` with field `field` of line `i` (0-based) replaced by `value`. */
export function withField(lines: string[], i: number, field: number, value: string): string[] {
  const f = lines[i].split(",");
  f[field] = value;
  return lines.map((l, k) => (k === i ? f.join(",") : l));
}
