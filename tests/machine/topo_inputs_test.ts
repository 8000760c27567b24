// TopoQueue's input rules (observed-behaviour J.2), each with its exact
// message: strict decoding (empty file, several documents, missing lists,
// unknown fields, wrong types, int64 range), then the validation rules in
// TopoQueue's order (first error wins), then evtsim's own 2^53 limit.

import {
  checkTopologyRequirements,
  parseTopoCluster,
  parseTopoJobs,
  parseTopoTimedJobs,
} from "../../io/topo_inputs.ts";
import { assertEquals } from "../_assert.ts";

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return "(no error)";
}

const C = 'decode cluster file "c.yaml": ';
const VC = 'validate cluster file "c.yaml": ';
const J = 'decode jobs file "j.yaml": ';
const VJ = 'validate jobs file "j.yaml": ';
const T = 'decode timed jobs file "t.yaml": ';
const VT = 'validate timed jobs file "t.yaml": ';

const node = (name: string, cpu: number | string = 8, gpu: number | string = 1) =>
  `  - name: ${name}\n    capacity:\n      cpu: ${cpu}\n      gpu: ${gpu}\n`;
const job = (
  name: string,
  replicas: number | string = 1,
  cpu: number | string = 1,
  gpu: number | string = 0,
) =>
  `  - name: ${name}\n    replicas: ${replicas}\n    resourcesPerReplica: {cpu: ${cpu}, gpu: ${gpu}}\n`;
const timed = (name: string, arrival = "0", duration = "1", replicas = "1") =>
  `  - name: ${name}\n    replicas: ${replicas}\n    resourcesPerReplica: {cpu: 1}\n    arrivalTick: ${arrival}\n    durationTicks: ${duration}\n`;

const CLUSTER_CASES: [string, string, string][] = [
  ["an empty file", "", `${C}file is empty`],
  ["a file of comments only", "# nothing\n", `${C}file is empty`],
  [
    "a second document",
    `nodes:\n${node("a")}---\nnodes: []\n`,
    `${C}multiple YAML documents are not supported`,
  ],
  [
    "a second document that does not parse",
    "nodes: []\n---\n[\n",
    `${C}after first document: yaml: line 4: Flow sequence must end with a ]`,
  ],
  [
    "no nodes list",
    "other: 1\n",
    `${C}yaml: unmarshal errors: line 1: field other not found in type model.Cluster`,
  ],
  [
    "a missing nodes list",
    "---\n",
    `${VC}top-level field "nodes" is required and must be a sequence`,
  ],
  [
    "a null nodes list",
    "nodes: ~\n",
    `${VC}top-level field "nodes" is required and must be a sequence`,
  ],
  [
    "nodes not a list",
    "nodes: {a: 1}\n",
    `${C}yaml: unmarshal errors: line 1: cannot unmarshal !!map into []model.Node`,
  ],
  [
    "a document that is a list",
    "- a\n",
    `${C}yaml: unmarshal errors: line 1: cannot unmarshal !!seq into model.Cluster`,
  ],
  [
    "an unknown node field",
    "nodes:\n  - name: a\n    labels: {}\n",
    `${C}yaml: unmarshal errors: line 3: field labels not found in type model.Node`,
  ],
  [
    "an unknown resource",
    "nodes:\n  - name: a\n    capacity: {cpu: 1, mem: 2}\n",
    `${C}yaml: unmarshal errors: line 3: field mem not found in type model.Resources`,
  ],
  [
    "a string capacity",
    `nodes:\n${node("a", "many")}`,
    `${C}yaml: unmarshal errors: line 4: cannot unmarshal !!str \`many\` into int64`,
  ],
  [
    "a fractional capacity",
    `nodes:\n${node("a", "1.5")}`,
    `${C}yaml: unmarshal errors: line 4: cannot unmarshal !!float \`1.5\` into int64`,
  ],
  [
    "a capacity beyond int64",
    `nodes:\n${node("a", "9223372036854775808")}`,
    `${C}yaml: unmarshal errors: line 4: cannot unmarshal !!int \`9223372036854775808\` into int64`,
  ],
  [
    "topology not a map",
    "nodes:\n  - name: a\n    topology: [rack]\n",
    `${C}yaml: unmarshal errors: line 3: cannot unmarshal !!seq into map[string]string`,
  ],
  [
    "the first error by line",
    `nodes:\n${node("a", "x")}${node("b", "y")}`,
    `${C}yaml: unmarshal errors: line 4: cannot unmarshal !!str \`x\` into int64`,
  ],
  [
    "bad YAML",
    "nodes: [\n",
    `${C}yaml: line 2: Flow sequence in block collection must be sufficiently indented and end with a ]`,
  ],
  [
    "a key given twice",
    "nodes:\n  - name: a\n    name: b\n",
    `${C}yaml: line 3: Map keys must be unique`,
  ],
  [
    "an empty node name",
    `nodes:\n${node("a")}${node("''")}`,
    `${VC}node at index 1: name must not be empty`,
  ],
  [
    "a node without a name",
    "nodes:\n  - capacity: {cpu: 1}\n",
    `${VC}node at index 0: name must not be empty`,
  ],
  [
    "a duplicate node name",
    `nodes:\n${node("a")}${node("b")}${node("a")}`,
    `${VC}node "a" at index 2: duplicate name (first used at index 0)`,
  ],
  [
    "a negative cpu capacity",
    `nodes:\n${node("a", -1)}`,
    `${VC}node "a": capacity.cpu must be non-negative, got -1`,
  ],
  [
    "a negative gpu capacity",
    `nodes:\n${node("a", 1, -2)}`,
    `${VC}node "a": capacity.gpu must be non-negative, got -2`,
  ],
  [
    "a cpu total beyond int64",
    `nodes:\n${node("a", "9223372036854775807")}${node("b", 1)}`,
    `${VC}node "b": cluster total capacity.cpu exceeds 9223372036854775807`,
  ],
  [
    "a gpu total beyond int64",
    `nodes:\n${node("a", 0, "9223372036854775800")}${node("b", 0, 8)}`,
    `${VC}node "b": cluster total capacity.gpu exceeds 9223372036854775807`,
  ],
  [
    "TopoQueue's rules before evtsim's limit",
    `nodes:\n${node("a", "9007199254740992")}${node("''")}`,
    `${VC}node at index 1: name must not be empty`,
  ],
  [
    "a total beyond 2^53 - 1",
    `nodes:\n${node("a", "9007199254740991")}${node("b", 0, 1)}${node("c", 1)}`,
    `${VC}node "c": cluster total capacity.cpu exceeds 9007199254740991 (2^53 - 1, the largest integer evtsim holds exactly)`,
  ],
  [
    "names in Go's quoting",
    `nodes:\n${node('"x\\ty"')}${node('"x\\ty"')}`,
    `${VC}node "x\\ty" at index 1: duplicate name (first used at index 0)`,
  ],
];

for (const [what, text, message] of CLUSTER_CASES) {
  Deno.test(`topo cluster file: ${what}`, () => {
    assertEquals(errorOf(() => parseTopoCluster(text, "c.yaml")), message);
  });
}

const JOB_CASES: [string, string, string][] = [
  ["an empty file", "", `${J}file is empty`],
  [
    "a missing jobs list",
    "jobs:\n",
    `${VJ}top-level field "jobs" is required and must be a sequence`,
  ],
  [
    "a timed field in a static jobs file",
    `jobs:\n${job("a")}    arrivalTick: 3\n`,
    `${J}yaml: unmarshal errors: line 5: field arrivalTick not found in type model.Job`,
  ],
  [
    "an int replicas given as text",
    `jobs:\n${job("a", "'2'")}`,
    `${J}yaml: unmarshal errors: line 3: cannot unmarshal !!str \`2\` into int`,
  ],
  ["an empty job name", `jobs:\n${job("''")}`, `${VJ}job at index 0: name must not be empty`],
  [
    "a duplicate job name",
    `jobs:\n${job("a")}${job("a")}`,
    `${VJ}job "a" at index 1: duplicate name (first used at index 0)`,
  ],
  [
    "zero replicas",
    `jobs:\n${job("a", 0)}`,
    `${VJ}job "a": replicas must be greater than zero, got 0`,
  ],
  [
    "negative replicas",
    `jobs:\n${job("a", -3)}`,
    `${VJ}job "a": replicas must be greater than zero, got -3`,
  ],
  [
    "a negative cpu request",
    `jobs:\n${job("a", 1, -1)}`,
    `${VJ}job "a": resourcesPerReplica.cpu must be non-negative, got -1`,
  ],
  [
    "a negative gpu request",
    `jobs:\n${job("a", 1, 1, -1)}`,
    `${VJ}job "a": resourcesPerReplica.gpu must be non-negative, got -1`,
  ],
  [
    "no positive request",
    `jobs:\n${job("a", 1, 0, 0)}`,
    `${VJ}job "a": at least one resource per replica must be positive`,
  ],
  [
    "no resources at all",
    "jobs:\n  - name: a\n    replicas: 1\n",
    `${VJ}job "a": at least one resource per replica must be positive`,
  ],
  [
    "a CPU total beyond int64",
    `jobs:\n${job("a", 3, "4611686018427387904")}`,
    `${VJ}job "a": total requested CPU exceeds 9223372036854775807`,
  ],
  [
    "a GPU total beyond int64",
    `jobs:\n${job("a", 2, 0, "4611686018427387904")}`,
    `${VJ}job "a": total requested GPU exceeds 9223372036854775807`,
  ],
  [
    "the first job at fault wins",
    `jobs:\n${job("a", 0)}${job("''")}`,
    `${VJ}job "a": replicas must be greater than zero, got 0`,
  ],
  [
    "a total beyond 2^53 - 1",
    `jobs:\n${job("a", 2, "4503599627370496")}`,
    `${VJ}job "a": total requested CPU exceeds 9007199254740991 (2^53 - 1, the largest integer evtsim holds exactly)`,
  ],
  [
    "TopoQueue's rules before evtsim's limit",
    `jobs:\n${job("a", 2, "4503599627370496")}${job("b", 0)}`,
    `${VJ}job "b": replicas must be greater than zero, got 0`,
  ],
];

for (const [what, text, message] of JOB_CASES) {
  Deno.test(`topo jobs file: ${what}`, () => {
    assertEquals(errorOf(() => parseTopoJobs(text, "j.yaml")), message);
  });
}

const TIMED_CASES: [string, string, string][] = [
  ["an empty file", "", `${T}file is empty`],
  ["two documents", "jobs: []\n---\njobs: []\n", `${T}multiple YAML documents are not supported`],
  [
    "a null jobs list",
    "jobs: null\n",
    `${VT}top-level field "jobs" is required and must be a sequence`,
  ],
  [
    "an unknown field",
    `jobs:\n${timed("a")}    priority: 1\n`,
    `${T}yaml: unmarshal errors: line 7: field priority not found in type model.timedJobInput`,
  ],
  [
    "a missing arrivalTick",
    "jobs:\n  - name: a\n    durationTicks: 1\n",
    `${VT}job "a": arrivalTick is required`,
  ],
  [
    "a null arrivalTick",
    "jobs:\n  - name: a\n    arrivalTick: ~\n",
    `${VT}job "a": arrivalTick is required`,
  ],
  [
    "a missing arrivalTick of a job without a name",
    "jobs:\n  - replicas: 1\n",
    `${VT}job at index 0: arrivalTick is required`,
  ],
  [
    "a missing durationTicks",
    "jobs:\n  - name: a\n    arrivalTick: 0\n",
    `${VT}job "a": durationTicks is required`,
  ],
  [
    "presence before the job rules",
    `jobs:\n${timed("a", "0", "1", "0")}  - name: b\n`,
    `${VT}job "b": arrivalTick is required`,
  ],
  [
    "the job rules before timing",
    `jobs:\n${timed("a", "-1")}${timed("b", "0", "1", "0")}`,
    `${VT}job "b": replicas must be greater than zero, got 0`,
  ],
  [
    "a negative arrivalTick",
    `jobs:\n${timed("a", "-1")}`,
    `${VT}job "a": arrivalTick must be non-negative, got -1`,
  ],
  [
    "a zero durationTicks",
    `jobs:\n${timed("a", "0", "0")}`,
    `${VT}job "a": durationTicks must be greater than zero, got 0`,
  ],
  [
    "a negative durationTicks",
    `jobs:\n${timed("a", "0", "-5")}`,
    `${VT}job "a": durationTicks must be greater than zero, got -5`,
  ],
  [
    "a tick beyond 2^53 - 1",
    `jobs:\n${timed("a", "9007199254740992")}`,
    `${VT}job "a": arrivalTick exceeds 9007199254740991 (2^53 - 1, the largest integer evtsim holds exactly)`,
  ],
  [
    "timing before evtsim's limit",
    `jobs:\n${timed("a", "9007199254740992")}${timed("b", "0", "0")}`,
    `${VT}job "b": durationTicks must be greater than zero, got 0`,
  ],
];

for (const [what, text, message] of TIMED_CASES) {
  Deno.test(`topo timed jobs file: ${what}`, () => {
    assertEquals(errorOf(() => parseTopoTimedJobs(text, "t.yaml")), message);
  });
}

Deno.test("topo files: what decodes, with Go's zero values for what is left out", () => {
  const c = parseTopoCluster(
    "nodes:\n  - name: a\n    topology: {rack: r1, zone: 7}\n    capacity: {cpu: 8}\n  - name: b\n    topology: ~\n",
    "c.yaml",
  );
  assertEquals(c, {
    nodes: [
      { name: "a", topology: { rack: "r1", zone: "7" }, capacity: { cpu: 8, gpu: 0 } },
      { name: "b", capacity: { cpu: 0, gpu: 0 } },
    ],
  });
  assertEquals(parseTopoJobs("jobs: []\n", "j.yaml"), []);
  assertEquals(
    parseTopoTimedJobs(
      "jobs:\n  - {name: a, replicas: 2, resourcesPerReplica: {gpu: 1}, requiredTopology: rack, arrivalTick: 0, durationTicks: 3}\n",
      "t.yaml",
    ),
    [{
      name: "a",
      replicas: 2,
      resourcesPerReplica: { cpu: 0, gpu: 1 },
      requiredTopology: "rack",
      arrivalTick: 0,
      durationTicks: 3,
    }],
  );
});

Deno.test("topology requirements: every node has every required key with a value, keys in sorted order", () => {
  const cluster = parseTopoCluster(
    "nodes:\n  - {name: n1, topology: {rack: r1, zone: z}}\n  - {name: n2, topology: {zone: z, rack: ''}}\n  - {name: n3, topology: {rack: r3}}\n",
    "c.yaml",
  );
  const jobs = (keys: string[]) =>
    keys.map((k, i) => ({
      name: `j${i}`,
      replicas: 1,
      resourcesPerReplica: { cpu: 1, gpu: 0 },
      requiredTopology: k,
    }));
  const check = (keys: string[], kind: "jobs" | "timed jobs" = "jobs") =>
    errorOf(() => checkTopologyRequirements(cluster, jobs(keys), "c.yaml", "j.yaml", kind));
  const at = 'validate cluster file "c.yaml" against jobs file "j.yaml": ';
  assertEquals(check([]), "(no error)");
  assertEquals(check(["", ""]), "(no error)");
  // n1 lacks "host"; "host" < "rack" < "zone" whatever the job order.
  assertEquals(
    check(["zone", "host", "host"]),
    `${at}node "n1": missing topology key "host" required by job "j1"`,
  );
  // n1 has both; n2 has an empty rack, checked before n3's missing zone.
  assertEquals(
    check(["zone", "rack", "rack"]),
    `${at}node "n2": topology key "rack" required by job "j1" must have a non-empty value`,
  );
  assertEquals(
    check(["zone"], "timed jobs"),
    'validate cluster file "c.yaml" against timed jobs file "j.yaml": node "n3": missing topology key "zone" required by job "j0"',
  );
});
