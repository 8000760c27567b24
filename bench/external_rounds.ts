// Throughput of the external-decision protocol over HTTP
// (docs/external-schedulers.md): a trace run through an `evtsim serve`
// process, every round answered by a TypeScript client with DR_EVT's EASY
// (examples/external_easy.ts: a few microseconds per round), against the
// same trace under `evtsim simulate -b easy`'s policy in-process. Prints
// rounds, rounds per second, both whole-run times, and whether the two
// schedules are the same.
//
//   deno run -A bench/swf_to_csv.ts /work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --out /tmp/kth.csv
//   deno run -A bench/external_rounds.ts /tmp/kth.csv 100 [--jobs N] [--grpc]
//
// With --grpc the rounds go over the gRPC stream instead (round_request /
// decide; the jobs are appended over HTTP, whose session ids are the
// same, as DR_EVT's gRPC append only stores them).

import { readTrace } from "../io/trace_csv.ts";
import { Simulation } from "../api/simulation.ts";
import { answerRounds, easyAnswer, type Round } from "../examples/external_easy.ts";
import * as grpc from "@grpc/grpc-js";
import { loadProto } from "../api/service/grpc.ts";

const args = [...Deno.args];
const cap = args.indexOf("--jobs");
const maxJobs = cap >= 0 ? Number(args.splice(cap, 2)[1]) : Infinity;
const overGrpc = args.includes("--grpc");
if (overGrpc) args.splice(args.indexOf("--grpc"), 1);
const [trace, nodesArg] = args;
if (trace === undefined) {
  console.error("usage: external_rounds.ts TRACE.csv [NODES] [--jobs N] [--grpc]");
  Deno.exit(2);
}
const totalNodes = Number(nodesArg ?? 100);
const { jobs: all } = await readTrace(trace, { runTimeMode: "actual" });
const jobs = all.slice(0, maxJobs);

// The in-process run: the built-in EASY.
let t0 = performance.now();
const sim = new Simulation({ totalNodes, backfillPolicy: "easy" });
sim.appendJobs(jobs);
const local = sim.finish().jobs;
const localMs = performance.now() - t0;

// The server: a process of its own, on a free port, one worker per session.
const server = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    new URL("../cli/main.ts", import.meta.url).pathname,
    "serve",
    "--port",
    "0",
    "--grpc_port",
    overGrpc ? "0" : "off",
    "--spare_workers",
    "1",
    "--call_time_limit",
    "0",
  ],
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let banner = "";
while (!/HTTP: (\S+)/.test(banner) || (overGrpc && !/gRPC: (\S+)/.test(banner))) {
  const { value, done } = await reader.read();
  if (done) throw new Error(`evtsim serve stopped: ${banner}`);
  banner += value;
}
const base = banner.match(/HTTP: (\S+)/)![1];
try {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const reply = await res.json();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(reply)}`);
    return reply;
  };
  let rounds = 0;
  let clientMs = 0;
  const decide = (r: Round) => {
    rounds++;
    const c = performance.now();
    const a = easyAnswer(r);
    clientMs += performance.now() - c;
    return a;
  };
  t0 = performance.now();
  const stream = overGrpc ? grpcStream(banner.match(/gRPC: (\S+)/)![1]) : undefined;
  const sessionId = stream === undefined
    ? (await post("/sessions", { totalNodes, admission: "external" })).sessionId as string
    : (await stream.request({
      init: { session_name: "bench", total_nodes: totalNodes, admission: "external" },
    })).init.session_id as string;
  // In batches: a request body is at most 1 MiB.
  for (let i = 0; i < jobs.length; i += 5000) {
    const batch = { jobs: jobs.slice(i, i + 5000) };
    await answerRounds(base, sessionId, await post(`/sessions/${sessionId}/jobs`, batch), decide);
  }
  if (stream !== undefined) {
    // Every round of the run over the stream: one advance to past the last end.
    let r = await stream.request({ advance_to: { target_time: 1e15 } }, "999999");
    while (r.response === "round_request") {
      const round = JSON.parse(r.round_request.round_json);
      r = await stream.request({
        decide: { request_id: "999999", decisions_json: JSON.stringify(decide(round)) },
      }, "999999");
    }
    if (r.response !== "advance_to") throw new Error(`advance_to: ${JSON.stringify(r)}`);
  }
  const out = await answerRounds(
    base,
    sessionId,
    await post(`/sessions/${sessionId}/finish`, {}),
    decide,
  ) as { jobs: unknown[] };
  stream?.close();
  const remoteMs = performance.now() - t0;
  const same = JSON.stringify(out.jobs) === JSON.stringify(local);
  console.log(`trace ${trace}: ${jobs.length} jobs, ${totalNodes} nodes`);
  console.log(`in-process simulate -b easy: ${localMs.toFixed(0)} ms`);
  console.log(
    `external over ${overGrpc ? "gRPC" : "HTTP"}: ${remoteMs.toFixed(0)} ms, ${rounds} rounds, ${
      (rounds / (remoteMs / 1000)).toFixed(0)
    } rounds/s (the client's EASY: ${clientMs.toFixed(0)} ms), ${
      (remoteMs / localMs).toFixed(1)
    }x the in-process run`,
  );
  console.log(`schedules: ${same ? "the same" : "DIFFERENT"}`);
  if (!same) Deno.exitCode = 1;
} finally {
  server.kill("SIGTERM");
  await reader.cancel();
  await server.status;
}

// deno-lint-ignore no-explicit-any
type Msg = Record<string, any>;

/** One gRPC Session stream: a request and its next reply (matched by request_id). */
function grpcStream(address: string) {
  const Service = loadProto().SimulationService as grpc.ServiceClientConstructor;
  const client = new Service(address, grpc.credentials.createInsecure());
  // deno-lint-ignore no-explicit-any
  const call = (client as any).Session(new grpc.Metadata());
  const waiting = new Map<string, (m: Msg) => void>();
  call.on("data", (m: Msg) => {
    const f = waiting.get(String(m.request_id));
    waiting.delete(String(m.request_id));
    f?.(m);
  });
  call.on("error", () => {});
  let next = 1;
  return {
    request(body: Msg, id = String(next++)): Promise<Msg> {
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        call.write({ request_id: id, ...body });
      });
    },
    close() {
      call.end();
      client.close();
    },
  };
}
