// Fault catalogue rows of node failures and preemption on the gRPC front
// (issue 30): init's on_node_failure, decisions and queues_json (HTTP's
// queues schema: a field HTTP lacks, a bad preemptMode, JSON that is not an
// array of queues), update_queue's queue_json (HTTP's queue schema),
// change_capacity's failed naming a node the machine lacks or on whole
// nodes: one ErrorResponse line each, the stream going on.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { grpcInit } from "./_input_faults.ts";
import { ROOT } from "./_cli.ts";
import { GrpcSession, withServer } from "./_service_helpers.ts";
import { readMachine } from "../io/machine_file.ts";

// change_capacity with `change` on a --machine server (the GPU example's
// machine) or a whole-node session: code 1 and the message of its ErrorResponse.
async function failed(change: Record<string, unknown>, machine: boolean) {
  const options = machine ? { machine: await readMachine(`${ROOT}examples/gpu_machine.yaml`) } : {};
  return await withServer(options, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      await g.ok({
        init: { session_name: "f", on_node_failure: "requeue", total_nodes: machine ? 0 : 4 },
      });
      const r = await g.request({ change_capacity: change });
      // The stream goes on after the refusal.
      await g.ok({ get_current_time: {} });
      return r.response === "error"
        ? { code: 1, error: r.error.message }
        : { code: 0, error: `accepted: ${JSON.stringify(r)}` };
    } finally {
      await g.close();
    }
  });
}

// update_queue with `body` on a session with one queue: code 1 and its ErrorResponse's message.
async function updateQueue(body: Record<string, unknown>) {
  return await withServer({}, async (server) => {
    const g = new GrpcSession(server.grpcPort!);
    try {
      await g.ok({
        init: { session_name: "q", total_nodes: 4, queues_json: '[{"name":"batch"}]' },
      });
      const r = await g.request({ update_queue: body });
      await g.ok({ get_current_time: {} });
      return r.response === "error"
        ? { code: 1, error: r.error.message }
        : { code: 0, error: `accepted: ${JSON.stringify(r)}` };
    } finally {
      await g.close();
    }
  });
}

/** Node failures and preemption over gRPC. */
export const GRPCF_ROWS: FaultRow[] = [
  {
    surface: "grpc",
    input: "init: on_node_failure other than kill or requeue",
    run: () => grpcInit({ on_node_failure: "retry" }),
    expected: /^on_node_failure must be one of kill, requeue, got 'retry'$/,
  },
  {
    surface: "grpc",
    input: "init: decisions other than true, heads or false",
    run: () => grpcInit({ decisions: "yes" }),
    expected: /^decisions must be one of true, heads, false, got 'yes'$/,
  },
  {
    surface: "grpc",
    input: "init: queues_json that is not JSON",
    run: () => grpcInit({ queues_json: '[{"name": "batch"' }),
    expected: /^queues_json is not valid JSON \(expected an array of queues, e\.g\. /,
  },
  {
    surface: "grpc",
    input: "init: queues_json that is one queue, not an array",
    run: () => grpcInit({ queues_json: '{"name": "batch"}' }),
    expected: /^queues_json must be a JSON array of queues, e\.g\. \[\{"name": "batch"\}\]$/,
  },
  {
    surface: "grpc",
    input: "init: queues_json with the queues file's spelling preempt_mode",
    run: () => grpcInit({ queues_json: '[{"name": "batch", "preempt_mode": "requeue"}]' }),
    expected: /^queues_json: 0: Unrecognized key: "preempt_mode"$/,
  },
  {
    surface: "grpc",
    input: "init: queues_json with an unknown preemptMode",
    run: () => grpcInit({ queues_json: '[{"name": "batch", "preemptMode": "pause"}]' }),
    expected: /^queues_json: 0\.preemptMode: Invalid option: expected one of "off"\|/,
  },
  {
    surface: "grpc",
    input: "init: queues_json with a queue without a name",
    run: () => grpcInit({ queues_json: '[{"priority": 10}]' }),
    expected: /^queues_json: 0\.name: Invalid input: expected string, received undefined$/,
  },
  {
    surface: "grpc",
    input: "change_capacity: failed names a node the machine does not have",
    run: () => failed({ time: 10, failed: ["gpu009"] }, true),
    expected:
      /^failed: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu009'$/,
  },
  {
    surface: "grpc",
    input: "change_capacity: failed on a whole-node session",
    run: () => failed({ time: 10, failed: ["n1"] }, false),
    expected: /^down, up: name nodes of a machine \(a server started with --machine\); /,
  },
  {
    surface: "grpc",
    input: "update_queue without queue_json",
    run: () => updateQueue({ time: 5 }),
    expected: /^update_queue needs queue_json, e\.g\. \{"name": "batch", "priority": 10\}$/,
  },
  {
    surface: "grpc",
    input: "update_queue: queue_json with an unknown preemptMode",
    run: () => updateQueue({ queue_json: '{"name": "batch", "preemptMode": "sometimes"}' }),
    expected: /^queue_json: preemptMode: Invalid option: expected one of "off"\|/,
  },
  {
    surface: "grpc",
    input: "update_queue: a queue of a session without queues",
    run: () =>
      withServer({}, async (server) => {
        const g = new GrpcSession(server.grpcPort!);
        try {
          await g.ok({ init: { session_name: "nq", total_nodes: 4 } });
          const r = await g.request({ update_queue: { queue_json: '{"name": "batch"}' } });
          return r.response === "error"
            ? { code: 1, error: r.error.message }
            : { code: 0, error: "accepted" };
        } finally {
          await g.close();
        }
      }),
    expected: /^cannot update a queue: no queues are configured$/,
  },
];
