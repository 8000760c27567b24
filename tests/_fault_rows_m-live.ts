// Fault catalogue rows of live node changes on a machine (issue 28 item 5):
// `changeNodes` naming a node the machine lacks, naming none, or on whole
// nodes, and a recording whose node change names an unknown node: one line each.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, library } from "./_input_faults.ts";
import { fileRecordingSink, Simulation, topologyCluster } from "../mod.ts";
import { ROOT } from "./_cli.ts";
import { withServer } from "./_service_helpers.ts";
import { readMachine } from "../io/machine_file.ts";

// POST /sessions/{id}/capacity with `body`, on a --machine server (the
// example machine) or a whole-node one.
async function capacity(body: Record<string, unknown>, machine: boolean) {
  const options = machine
    ? { grpcPort: undefined, machine: await readMachine(`${ROOT}examples/gpu_machine.yaml`) }
    : { grpcPort: undefined };
  return await withServer(options, async (_s, api) => {
    const { sessionId } = await api.ok("POST", "/sessions", machine ? {} : { totalNodes: 4 });
    const r = await api.send("POST", `/sessions/${sessionId}/capacity`, body);
    return { code: r.status, error: r.body.error };
  });
}

const machine = () =>
  new Simulation({
    totalNodes: 2,
    resourceModel: topologyCluster([
      { name: "n1", capacity: { cpu: 8 } },
      { name: "n2", capacity: { cpu: 8 } },
    ]),
  });

/** Live changes of a machine's nodes (library and recorded sessions). */
export const LIVE_ROWS: FaultRow[] = [
  {
    surface: "library",
    input: "Simulation.changeNodes: a node the machine does not have",
    run: () => Promise.resolve(library(() => machine().changeNodes({ down: ["n9"] }))),
    expected: /^changeNodes: down: 'n9' is not a node of the machine \(2 nodes, n1 … n2\)$/,
  },
  {
    surface: "library",
    input: "Simulation.changeNodes: no node named",
    run: () => Promise.resolve(library(() => machine().changeNodes({ down: [], up: [] }))),
    expected: /^changeNodes: name at least one node in down or up$/,
  },
  {
    surface: "library",
    input: "Simulation.changeNodes: names that are not a list",
    run: () => Promise.resolve(library(() => machine().changeNodes({ up: "n1" as never }))),
    expected: /^changeNodes: up: expected a list of node names, got /,
  },
  {
    surface: "library",
    input: "Simulation.changeNodes on whole nodes (no machine)",
    run: () =>
      Promise.resolve(
        library(() => new Simulation({ totalNodes: 4 }).changeNodes({ down: ["n1"] })),
      ),
    expected: /^changeNodes: naming nodes needs a machine .*changeCapacity\)$/,
  },
  {
    surface: "in-process",
    input: "replay --verify: a recording whose live node change names a node the machine lacks",
    run: async (dir) => {
      const sim = machine();
      sim.startRecording(fileRecordingSink(`${dir}/r.replay`));
      sim.appendJob({
        submitTime: 0,
        numNodes: 0,
        timeLimit: 10,
        demand: { replicas: 1, perReplica: { cpu: 8 } },
      });
      sim.changeNodes({ time: 5, down: ["n2"] });
      sim.finish();
      sim.stopRecording();
      const text = await Deno.readTextFile(`${dir}/r.replay`);
      await Deno.writeTextFile(`${dir}/r.replay`, text.replace('"down":["n2"]', '"down":["zz"]'));
      return cli(["replay", `${dir}/r.replay`, "--verify"]);
    },
    expected: /changeNodes: down: 'zz' is not a node of the machine/,
  },
  {
    surface: "http",
    input: "serve --machine: POST capacity down naming a group the machine lacks",
    run: () => capacity({ down: ["gpu9"] }, true),
    expected:
      /^down: expected a node or group of the machine \(groups: cpu, gpu, bigmem\), got 'gpu9'$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: POST capacity down/up on a whole-node session",
    run: () => capacity({ down: ["n1"] }, false),
    expected: /^down, up: name nodes of a machine .*give capacity \(a node count\)$/,
    code: 400,
  },
  {
    surface: "http",
    input: "serve: POST capacity with both a node count and down/up",
    run: () => capacity({ capacity: 2, up: ["gpu"] }, true),
    expected: /^give either capacity \(a node count\) or down\/up/,
    code: 400,
  },
];
