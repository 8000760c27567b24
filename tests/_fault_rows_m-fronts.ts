// Fault rows of serve's metric options and gRPC job demands (issue 28, m-fronts).

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { ROOT, runCli } from "./_cli.ts";
import { GrpcSession, withServer } from "./_service_helpers.ts";
import { readMachine } from "../io/machine_file.ts";
import { Simulation } from "../api/simulation.ts";
import { topologyCluster } from "../schedulers/topology_cluster.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;

/** `evtsim serve ARGS` in-process (refused before it listens). */
async function serve(args: string[]) {
  const r = await runCli(["serve", "--port", "0", "--grpc_port", "off", ...args]);
  return { code: r.code, error: r.err.join("\n") };
}

/** A session created over HTTP with `params`. */
function create(params: Record<string, unknown>) {
  return withServer({ grpcPort: undefined }, async (_s, api) => {
    const r = await api.send("POST", "/sessions", { totalNodes: 4, ...params });
    return { code: r.status, error: r.body.error };
  });
}

/** One gRPC request after an init (`init` given: none other), on a machine server or not. */
async function grpcReply(
  init: Record<string, unknown>,
  request?: Record<string, unknown>,
  machine = false,
) {
  const options = machine ? { machine: await readMachine(MACHINE) } : {};
  return await withServer(options, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      let r = await g.request({
        init: { session_name: "f", total_nodes: machine ? 0 : 4, ...init },
      });
      if (request !== undefined && r.response !== "error") r = await g.request(request);
      return { code: r.response === "error" ? 1 : 0, error: r.error?.message ?? "" };
    } finally {
      await g.close();
    }
  });
}

const JOB = { submit_time: 0, num_nodes: 1, limit_time: 60 };

export const FRONTS_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "serve --trim 1,1 --measure_window 0:5",
    run: () => serve(["--trim", "1,1", "--measure_window", "0:5"]),
    expected: /--trim and --measure_window: give one of them, not both$/,
  },
  {
    surface: "in-process",
    input: "serve --trim lots",
    run: () => serve(["--trim", "lots"]),
    expected: /--trim: expected WARMUP,COOLDOWN, each a fraction in \[0, 1\) or a whole number/,
  },
  {
    surface: "in-process",
    input: "serve --bsld_tau 0",
    run: () => serve(["--bsld_tau", "0"]),
    expected: /--bsld_tau must be a number of seconds > 0, got 0$/,
  },
  {
    surface: "in-process",
    input: "serve --resource_columns csv",
    run: () => serve(["--resource_columns", "csv"]),
    expected: /--resource_columns expects one of drevt, per_resource, got 'csv'$/,
  },
  {
    surface: "http",
    input: "serve: a session with bsldTau 0",
    run: () => create({ bsldTau: 0 }),
    expected: /^bsld_tau must be a number of seconds > 0, got 0$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: a session with both measureWindow and trim",
    run: () => create({ measureWindow: [0, 5], trim: [1, 1] }),
    expected: /^give measure_window or trim, not both$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve --machine: a live capacity change (a node count) on a machine session",
    run: () =>
      readMachine(MACHINE).then((machine) =>
        withServer({ grpcPort: undefined, machine }, async (_s, api) => {
          const { sessionId } = await api.ok("POST", "/sessions", {});
          const r = await api.send("POST", `/sessions/${sessionId}/capacity`, { capacity: 2 });
          return { code: r.status, error: r.body.error };
        })
      ),
    expected: /^capacity: a live change of the node count does not apply on a resource model/,
    code: 400,
  },
  {
    surface: "library",
    input: "Simulation.changeCapacity on a resource model",
    run: () => {
      const sim = new Simulation({
        totalNodes: 1,
        resourceModel: topologyCluster([{ name: "a", topology: {}, capacity: { cores: 8 } }]),
      });
      try {
        sim.changeCapacity(0, 5);
        return Promise.resolve({ code: 0, error: "" });
      } catch (e) {
        return Promise.resolve({ code: 1, error: (e as Error).message });
      }
    },
    expected: /^capacity: a live change of the node count does not apply on a resource model/,
  },
  {
    surface: "http",
    input: "serve --machine: a session's queue bound to a partition the machine lacks",
    run: () =>
      readMachine(MACHINE).then((machine) =>
        withServer({ grpcPort: undefined, machine }, async (_s, api) => {
          const r = await api.send("POST", "/sessions", {
            queues: [{ name: "q", partition: "tpu" }],
          });
          return { code: r.status, error: r.body.error };
        })
      ),
    expected:
      /^queues\[0\] \(q\): partition: expected a partition of the machine \(cpu, gpu\), got 'tpu'$/,
    code: 400,
  },
  {
    surface: "grpc",
    input: "serve: an init with trim 'lots'",
    run: () => grpcReply({ trim: "lots" }),
    expected: /^trim: expected WARMUP,COOLDOWN/,
  },
  {
    surface: "grpc",
    input: "serve --machine: a gRPC job with memory 'lots'",
    run: () => grpcReply({}, { append_job: { ...JOB, memory: "lots" } }, true),
    expected: /^job 0: memory: expected a non-negative integer of MiB or a size/,
  },
  {
    surface: "grpc",
    input: "serve --machine: a gRPC job asking 8 GPUs per node of a 4-GPU partition",
    run: () => grpcReply({}, { append_job: { ...JOB, gpus: 8, partition: "gpu" } }, true),
    expected: /^job 0: gpus: 8 per node, but no node of partition gpu has more than 4$/,
  },
  {
    surface: "grpc",
    input: "serve --machine: a gRPC job naming a resource the machine does not have",
    run: () => grpcReply({}, { append_job: { ...JOB, resources: { tpu: 1 } } }, true),
    expected:
      /^job 0: resources\.tpu: the machine has no resource tpu \(it has cores, gpus, memory\)$/,
  },
  {
    surface: "grpc",
    input: "serve without --machine: a gRPC job with num_cores",
    run: () => grpcReply({}, { append_job: { ...JOB, num_cores: 4 } }),
    expected: /^job 0: num_cores: needs a server started with --machine/,
  },
];
