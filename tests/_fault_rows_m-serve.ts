// Fault rows of `evtsim serve --machine` (issue 28 item 6, m-serve).

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { ROOT, runCli } from "./_cli.ts";
import { withServer } from "./_service_helpers.ts";
import { readMachine } from "../io/machine_file.ts";

const MACHINE = `${ROOT}examples/gpu_machine.yaml`;

// Appends one job with `demand` on a server (with the example machine, or whole nodes only).
async function append(demand: Record<string, unknown>, machine = true) {
  const options = machine
    ? { grpcPort: undefined, machine: await readMachine(MACHINE) }
    : { grpcPort: undefined };
  return await withServer(options, async (_s, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", machine ? {} : { totalNodes: 4 });
    const r = await api.send("POST", `/sessions/${sessionId}/jobs`, {
      jobs: [{ submitTime: 0, numNodes: 1, timeLimit: 60, ...demand }],
    });
    return { code: r.status, error: r.body.error };
  });
}

export const SERVE_MACHINE_ROWS: FaultRow[] = [
  {
    surface: "in-process",
    input: "serve --machine: a machine file with a group of count 0",
    run: async (dir) => {
      Deno.writeTextFileSync(`${dir}/m.yaml`, "groups:\n  - name: a\n    count: 0\n");
      const r = await runCli(["serve", "--port", "0", "--machine", `${dir}/m.yaml`]);
      return { code: r.code, error: r.err.join("\n") };
    },
    expected: /^evtsim: \S+m\.yaml:3: groups\.0\.count: expected a positive integer$/,
  },
  {
    surface: "http",
    input: "serve --machine: a session giving totalNodes",
    run: () =>
      readMachine(MACHINE).then((machine) =>
        withServer({ grpcPort: undefined, machine }, async (_s, api) => {
          const r = await api.send("POST", "/sessions", { totalNodes: 4 });
          return { code: r.status, error: r.body.error };
        })
      ),
    expected:
      /^totalNodes: leave it out: this server runs every session on its --machine \(14 nodes\)$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve --machine: an appended job with numCores -1",
    run: () => append({ numCores: -1 }),
    expected: /^job 0: numCores: expected a non-negative integer, got '-1'$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve --machine: an appended job asking 8 GPUs per node of a 4-GPU partition",
    run: () => append({ gpus: 8, partition: "gpu" }),
    expected: /^job 0: gpus: 8 per node, but no node of partition gpu has more than 4$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve without --machine: an appended job with gpus",
    run: () => append({ gpus: 1 }, false),
    expected: /^job 0: gpus: needs a server started with --machine/,
    code: 400,
  },
];
