// A DR_EVT-style gRPC client of `evtsim serve`, built from the .proto only:
//
//   deno run --allow-net --allow-read examples/grpc_client.ts HOST:PORT PROTO [TOKEN]
//
// It opens one `dr_evt_grpc.SimulationService/Session` stream, sends DR_EVT's
// requests one at a time (init, append_jobs, submit_job for each job,
// run_until_exclusive, advance_to, the monitors, finish_simulation) and
// prints every reply as `request_id response {fields}`. Nothing in it is
// evtsim-specific: a client written against DR_EVT's server works the same.

// Full specifiers: the client runs on its own, without this repository's deno.json.
// deno-lint-ignore no-import-prefix
import * as grpc from "npm:@grpc/grpc-js@^1.14.7";
// deno-lint-ignore no-import-prefix
import * as loader from "npm:@grpc/proto-loader@^0.8.1";

const [address, protoFile, token] = Deno.args;
if (address === undefined || protoFile === undefined) {
  console.error("usage: grpc_client.ts HOST:PORT PROTO [TOKEN]");
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
const metadata = new grpc.Metadata();
if (token !== undefined) metadata.set("authorization", `Bearer ${token}`);

type Message = Record<string, unknown>;
const call =
  (client as unknown as { Session(m: grpc.Metadata): grpc.ClientDuplexStream<Message, Message> })
    .Session(metadata);
const pending = new Map<string, (reply: Message) => void>();
call.on("data", (reply: Message) => {
  pending.get(String(reply.request_id))?.(reply);
  pending.delete(String(reply.request_id));
});
call.on("error", (e: Error) => {
  console.error(`stream error: ${e.message}`);
  Deno.exit(1);
});

let nextId = 1;
/** Sends one request, waits for its reply and prints it. */
function send(request: Message): Promise<Message> {
  const requestId = String(nextId++);
  return new Promise((resolve) => {
    pending.set(requestId, (reply) => {
      const kind = String(reply.response);
      const body = { ...(reply[kind] as Message) };
      // The session id is random: show its shape, not its value.
      if (typeof body.session_id === "string") body.session_id = `<${body.session_id.length} hex>`;
      console.log(`${reply.request_id} ${kind} ${JSON.stringify(body)}`);
      resolve(reply);
    });
    call.write({ request_id: requestId, ...request });
  });
}

await send({
  init: { total_nodes: 8, backfill_policy: "easy", run_time_mode: "limit", session_name: "demo" },
});
const jobs = [
  { submit_time: 0, num_nodes: 6, queue: "pbatch", limit_time: 100 },
  { submit_time: 10, num_nodes: 4, queue: "pbatch", limit_time: 50 },
  { submit_time: 20, num_nodes: 2, queue: "pbatch", limit_time: 30 },
];
const appended = await send({ append_jobs: { requests: jobs } });
// DR_EVT's protocol: append only stores a job; submit_job hands it to the scheduler.
const ids = (appended.append_jobs as { job_idx: number[] }).job_idx;
for (const [k, id] of ids.entries()) {
  await send({ submit_job: { job_idx: id, submit_time: jobs[k].submit_time } });
}
await send({ run_until_exclusive: { target_time: 20 } });
await send({ get_current_time: {} });
await send({ advance_to: { target_time: 20 } });
await send({ get_nodes_in_use: {} });
await send({ get_active_job_count: {} });
await send({ get_fcfs_head_shadow_time: {} });
await send({ advance_to: { target_time: 5 } }); // time never goes back: an ErrorResponse
await send({ finish_simulation: {} });
call.end();
client.close();
