// Converts an SWF log to a DR_EVT `simple` CSV (queue pbatch) for the
// benchmark's side-by-side runs, exactly as the original swf_to_csv.py did
// (same bytes): size = requested processors (field 8, else 5); limit =
// requested time (field 9, else the run time); actual = min(run time, limit)
// (a real resource manager kills at the limit); jobs with a non-positive size
// or run time are dropped; submit times are made relative to the first job.
//
//   deno run --allow-read --allow-write bench/swf_to_csv.ts LOG.swf[.gz] [--out FILE]
//
// This is a benchmark-input converter with fixed rules; evtsim itself reads
// SWF logs directly (`evtsim simulate log.swf.gz`) with its own reader.

import { parseScriptArgs } from "./_args.ts";

/** Calls `each` for every line of the (possibly gzipped) file. */
async function forEachLine(path: string, each: (line: string) => void): Promise<void> {
  const file = await Deno.open(path);
  let stream: ReadableStream<BufferSource> = file.readable;
  if (path.endsWith(".gz")) stream = stream.pipeThrough(new DecompressionStream("gzip"));
  let rest = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    for (const line of parts) each(line);
  }
  if (rest !== "") each(rest);
}

function int(text: string): number {
  const n = Number(text);
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw new Error(`not an integer: '${text}'`);
  return n;
}

/**
 * The CSV text for the SWF log at `path`.
 *
 * @example
 * ```ts
 * import { swfToCsv } from "./swf_to_csv.ts";
 * const path = Deno.makeTempFileSync({ suffix: ".swf" });
 * Deno.writeTextFileSync(path, "; MaxProcs: 8\n1 100 5 60 4 -1 -1 4 30 -1 1 -1 -1 -1 -1 -1 -1 -1\n");
 * console.assert((await swfToCsv(path)).endsWith("\n0,4,pbatch,30,30\n"));
 * Deno.removeSync(path);
 * ```
 */
export async function swfToCsv(path: string): Promise<string> {
  const out: string[] = [];
  let t0: number | undefined;
  await forEachLine(path, (line) => {
    if (line.startsWith(";") || line.trim() === "") return;
    const c = line.trim().split(/\s+/);
    const submit = Number(c[1]);
    const run = Number(c[3]);
    const alloc = int(c[4]);
    const reqP = int(c[7]);
    const reqT = Number(c[8]);
    const n = reqP > 0 ? reqP : alloc;
    if (n <= 0 || run <= 0) return;
    const limit = reqT > 0 ? reqT : run;
    const s = Math.trunc(submit);
    t0 ??= s;
    const l = Math.trunc(limit);
    const a = Math.trunc(Math.min(run, limit));
    out.push(`${s - t0},${n},pbatch,${Math.max(l, 1)},${Math.max(a, 1)}`);
  });
  return ["job_submit_time,num_nodes,queue,time_limit,actual_run_time", ...out].join("\n") + "\n";
}

if (import.meta.main) {
  const usage = "usage: swf_to_csv.ts LOG.swf[.gz] [--out FILE]";
  let path: string;
  let outPath: string | undefined;
  try {
    const { values, positionals } = parseScriptArgs(Deno.args, {
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    if (values.help === true) {
      console.log(usage);
      Deno.exit(0);
    }
    if (positionals.length !== 1) throw new Error("expected one SWF log");
    path = positionals[0];
    outPath = values.out;
  } catch (e) {
    console.error(`swf_to_csv: ${(e as Error).message}\n${usage}`);
    Deno.exit(2);
  }
  const csv = await swfToCsv(path);
  if (outPath !== undefined) await Deno.writeTextFile(outPath, csv);
  else await Deno.stdout.write(new TextEncoder().encode(csv));
}
