// Load run of `evtsim serve` on loopback:
//
//   deno task bench:serve [--sessions 32] [--jobs 5000] [--batch 100] [--spare_workers N]
//
// Starts `evtsim serve` in its own process on a free port, then drives
// --sessions concurrent sessions, each appending --jobs seeded jobs in
// batches of --batch and advancing after each batch, finishes them, and
// checks every schedule against the library's batch run of the same jobs.
// Prints requests/second over the driving phase and the p50/p99 latency of
// create, append and advance requests. --spare_workers is passed to the
// server (its default otherwise).

import { intArg, parseScriptArgs } from "./_args.ts";
import { driveLoadSession, type LoadResult } from "./_serve_load.ts";

const USAGE =
  "usage: deno task bench:serve [--sessions N] [--jobs N] [--batch N] [--spare_workers N]";

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function main(): Promise<void> {
  const { values } = parseScriptArgs(Deno.args, {
    sessions: { type: "string" },
    jobs: { type: "string" },
    batch: { type: "string" },
    spare_workers: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const sessions = intArg("--sessions", values.sessions, 1) ?? 32;
  const jobs = intArg("--jobs", values.jobs, 1) ?? 5000;
  const batch = intArg("--batch", values.batch, 1) ?? 100;
  const spares = intArg("--spare_workers", values.spare_workers, 0);
  const root = new URL("../", import.meta.url).pathname;
  const server = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--config",
      `${root}deno.json`,
      `${root}cli/main.ts`,
      "serve",
      "--port",
      "0",
      "--grpc_port",
      "off",
      "--max_sessions",
      String(sessions),
      ...(spares === undefined ? [] : ["--spare_workers", String(spares)]),
    ],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  try {
    const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the server did not start: ${seen}`);
      seen += value;
    }
    const base = /^HTTP: (\S+)/.exec(seen)?.[1];
    if (base === undefined) throw new Error(`no HTTP address in: ${seen}`);
    // Spare workers warm up once the server listens; a long-running server has
    // them ready, so the run starts once /health reports them (at most 60 s).
    const w0 = performance.now();
    const want = Math.min(spares ?? 0, sessions);
    while (want > 0 && performance.now() - w0 < 60_000) {
      const h = await (await fetch(`${base}/health`)).json() as { spareWorkers: number };
      if (h.spareWorkers >= want) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (want > 0) {
      console.log(`${want} spare workers ready after ${(performance.now() - w0).toFixed(0)} ms`);
    }
    const t0 = performance.now();
    const results: LoadResult[] = await Promise.all(
      Array.from({ length: sessions }, (_, k) => driveLoadSession({ base }, k + 1, jobs, batch)),
    );
    const seconds = (performance.now() - t0) / 1000;
    const wrong = results.filter((r) => JSON.stringify(r.live) !== JSON.stringify(r.batch));
    const appends = results.flatMap((r) => r.appendMs).sort((a, b) => a - b);
    const creates = results.map((r) => r.createMs).sort((a, b) => a - b);
    const advances = results.flatMap((r) => r.advanceMs).sort((a, b) => a - b);
    const requests = appends.length + advances.length + 2 * sessions; // + create, finish
    console.log(
      `${sessions} sessions x ${jobs} jobs in batches of ${batch}: ${requests} requests in ` +
        `${seconds.toFixed(2)} s = ${(requests / seconds).toFixed(0)} requests/s ` +
        `(${((sessions * jobs) / seconds).toFixed(0)} jobs/s)`,
    );
    for (
      const [name, xs] of [["create", creates], ["append", appends], ["advance", advances]] as const
    ) {
      console.log(
        `${name}: ${xs.length} requests, p50 ${percentile(xs, 0.5).toFixed(1)} ms, ` +
          `p99 ${percentile(xs, 0.99).toFixed(1)} ms, max ${xs.at(-1)!.toFixed(1)} ms`,
      );
    }
    console.log(
      wrong.length === 0
        ? `every session's schedule equals its batch run (${sessions * jobs} jobs)`
        : `MISMATCH in sessions ${wrong.map((r) => r.seed).join(", ")}`,
    );
    reader.releaseLock();
    if (wrong.length > 0) Deno.exitCode = 1;
  } finally {
    try {
      server.kill("SIGTERM");
    } catch { /* it has died already (its error is on stderr) */ }
    await server.status;
    await server.stdout.cancel().catch(() => {});
  }
}

if (import.meta.main) await main();
