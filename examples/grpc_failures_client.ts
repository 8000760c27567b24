// A gRPC client of `evtsim serve --machine examples/gpu_machine.yaml` with
// node failures and a preempting queue (docs/serving.md, docs/failures.md,
// docs/preemption.md), built from the .proto only:
//
//   deno run --allow-net --allow-read examples/grpc_failures_client.ts HOST:PORT PROTO
//
// init takes on_node_failure, requeue_limit and the queues as HTTP's JSON
// (queues_json); change_capacity takes `failed` nodes or groups (a repair is
// `up`); get_statistics and the finish reply carry the lost work, requeues and
// preemptions. It prints every reply as `request_id response {fields}`.

// Full specifiers: the client runs on its own, without this repository's deno.json.
// deno-lint-ignore no-import-prefix
import * as grpc from "npm:@grpc/grpc-js@^1.14.7";
// deno-lint-ignore no-import-prefix
import * as loader from "npm:@grpc/proto-loader@^0.8.1";

const [address, protoFile] = Deno.args;
if (address === undefined || protoFile === undefined) {
  console.error("usage: grpc_failures_client.ts HOST:PORT PROTO");
  Deno.exit(2);
}

const definition = loader.loadSync(protoFile, {
  keepCase: true,
  longs: String,
  defaults: true,
  oneofs: true,
});
const pkg = grpc.loadPackageDefinition(definition).dr_evt_grpc as grpc.GrpcObject;
const Service = pkg.SimulationService as grpc.ServiceClientConstructor;
const client = new Service(address, grpc.credentials.createInsecure());

type Message = Record<string, unknown>;
const call =
  (client as unknown as { Session(m: grpc.Metadata): grpc.ClientDuplexStream<Message, Message> })
    .Session(new grpc.Metadata());
const pending = new Map<string, (reply: Message) => void>();
call.on("data", (reply: Message) => {
  pending.get(String(reply.request_id))?.(reply);
  pending.delete(String(reply.request_id));
});
call.on("error", (e: Error) => {
  console.error(`stream error: ${e.message}`);
  Deno.exit(1);
});

const HIDDEN = new Set([
  "resource_metrics_json",
  "metrics_json",
  "simulated_trace_file",
  "resource_trace_file",
  "statistics_file",
]);

/** A reply as printed: nested messages too, the session id as its shape. */
function shown(m: Message): Message {
  const out: Message = {};
  for (const [k, v] of Object.entries(m)) {
    if (HIDDEN.has(k) || k.startsWith("_")) continue;
    const nested = typeof v === "object" && v !== null && !Array.isArray(v);
    out[k] = k === "session_id" ? `<${String(v).length} hex>` : nested ? shown(v as Message) : v;
  }
  return out;
}

let nextId = 1;
/**
 * Sends one request, waits for its reply and prints it: without the machine's
 * per-resource JSON, the finish reply's metrics and file names, and
 * proto-loader's `_name` markers of proto3 optional fields.
 */
function send(request: Message): Promise<Message> {
  const requestId = String(nextId++);
  return new Promise((resolve) => {
    pending.set(requestId, (reply) => {
      const kind = String(reply.response);
      const body = shown(reply[kind] as Message);
      console.log(`${reply.request_id} ${kind} ${JSON.stringify(body)}`);
      resolve(reply);
    });
    call.write({ request_id: requestId, ...request });
  });
}

await send({
  init: {
    session_name: "failures",
    backfill_policy: "easy",
    on_node_failure: "requeue",
    requeue_limit: 3,
    // HTTP's queues: batch jobs may be preempted (requeued) by urgent ones.
    queues_json: JSON.stringify([
      { name: "batch", preemptMode: "requeue" },
      { name: "urgent", priority: 10 },
    ]),
  },
});
const jobs = [
  // A GPU job, on a GPU node when the gpu group fails at 600 s.
  {
    submit_time: 0,
    num_nodes: 1,
    limit_time: 7200,
    actual_run_time: 3000,
    gpus: 4,
    partition: "gpu",
    queue: "batch",
  },
  // The cpu partition full (8 cpu and 2 bigmem nodes) until an urgent job preempts it at 100 s.
  {
    submit_time: 0,
    num_nodes: 10,
    limit_time: 3600,
    actual_run_time: 3000,
    num_cores: 64,
    partition: "cpu",
    queue: "batch",
  },
  {
    submit_time: 100,
    num_nodes: 4,
    limit_time: 600,
    actual_run_time: 600,
    num_cores: 64,
    partition: "cpu",
    queue: "urgent",
  },
];
const appended = await send({ append_jobs: { requests: jobs } });
const ids = (appended.append_jobs as { job_idx: number[] }).job_idx;
for (const [k, id] of ids.entries()) {
  await send({ submit_job: { job_idx: id, submit_time: jobs[k].submit_time } });
}
await send({ change_capacity: { time: 600, failed: ["gpu"] } });
await send({ change_capacity: { time: 1200, up: ["gpu"] } });
await send({ advance_to: { target_time: 1000 } });
await send({ get_statistics: {} });
await send({ change_capacity: { time: 1000, failed: ["gpu009"] } }); // not a node: an ErrorResponse
await send({ finish_simulation: {} });
call.end();
client.close();
