// The live-event inputs are defined once (core/live_inputs.ts) and derived
// everywhere else (CONTRIBUTING.md, "A new live-event kind"): every kind of
// the table is taken by `step`'s check, the library's creator and
// `Simulation`, the `.replay` log's writer and reader, the REPL's names and
// the HTTP front's schemas; an extra definition flows through the derived
// check, creator, log codec and log schema without further edits; and the
// names table of docs/seed-003-mapping.md is the table's.

import * as inputs from "../../api/inputs.ts";
import { initialState } from "../../api/initial_state.ts";
import { httpApp } from "../../api/service/http.ts";
import { SessionHost } from "../../api/service/session_host.ts";
import { Simulation } from "../../api/simulation.ts";
import { loadSnapshot, saveSnapshot } from "../../api/snapshot.ts";
import { topologyCluster } from "../../schedulers/topology_cluster.ts";
import { EVENT_TYPES } from "../../cli/_repl_events.ts";
import { checkStepArguments } from "../../core/_input_check.ts";
import { EvtsimError } from "../../core/errors.ts";
import {
  checkLiveInput,
  checkLiveInputKind,
  liveInputData,
  liveInputFromArgs,
  liveInputOfData,
} from "../../core/_live_inputs_derived.ts";
import { liveEventData, liveEventInput, liveEventOfData } from "../../core/_live_stored.ts";
import {
  LIVE_INPUTS,
  type LiveFieldType,
  type LiveInputKind,
  type LiveInputTable,
} from "../../core/live_inputs.ts";
import { type Input, step } from "../../core/step.ts";
import type { SimState } from "../../core/state.ts";
import { encode, inputOf } from "../../io/replay_log.ts";
import { InputSchema, liveInputSchemas, MESSAGE_SCHEMAS } from "../../io/replay_schema.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url);
const KINDS = Object.keys(LIVE_INPUTS) as LiveInputKind[];

// A value of each field type that `step`'s check and a log take.
const SAMPLE: Record<LiveFieldType, unknown> = {
  jobId: 7,
  time: 50,
  integer: 2,
  count: 3,
  outcome: "failed",
  jobUpdate: { priority: 5, queue: "pdebug" },
  queueDef: { name: "pdebug", priority: 10, maxRunning: 8, open: true },
  nodeNames: ["n1", "n2"],
};

// A value of each field type that `step`'s check refuses.
const WRONG: Record<LiveFieldType, unknown> = {
  jobId: "7",
  time: "50",
  integer: "2",
  count: null,
  outcome: 3,
  jobUpdate: [],
  queueDef: "pdebug",
  nodeNames: ["n1", 2],
};

function sampleOf(kind: string, table: LiveInputTable = LIVE_INPUTS): Record<string, unknown> {
  const out: Record<string, unknown> = { kind };
  for (const [name, field] of Object.entries(table[kind].fields)) out[name] = SAMPLE[field.type];
  return out;
}

// The creator's arguments for an input, in the order of its definition's params.
function argsOf(kind: string, input: Record<string, unknown>): unknown[] {
  return LIVE_INPUTS[kind as LiveInputKind].params.map((p) =>
    typeof p === "string" ? input[p] : Object.fromEntries(p.map((n) => [n, input[n]]))
  );
}

function usageMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert(e instanceof EvtsimError && e.kind === "usage", String(e));
    return e.message;
  }
  throw new Error("expected a usage error");
}

Deno.test("live inputs: every kind of the table is checked by step, field by field, in order", () => {
  const state = initialState({ totalNodes: 8 });
  for (const kind of KINDS) {
    const input = sampleOf(kind);
    checkStepArguments(state, input);
    for (
      const [name, field] of Object.entries(
        LIVE_INPUTS[kind].fields as LiveInputTable[string]["fields"],
      )
    ) {
      const message = usageMessage(() =>
        checkStepArguments(state, { ...input, [name]: WRONG[field.type] })
      );
      assert(message.startsWith(`${kind}: ${name}: expected `), message);
      if (field.optional) checkStepArguments(state, { ...input, [name]: undefined });
      else {
        assertEquals(
          usageMessage(() => checkStepArguments(state, { ...input, [name]: undefined })),
          message.replace(/got .*$/, "got undefined"),
        );
      }
    }
  }
});

Deno.test("live inputs: the check's messages are today's, word for word", () => {
  const state = initialState({ totalNodes: 8 });
  const say = (input: Record<string, unknown>) =>
    usageMessage(() => checkStepArguments(state, input));
  assertEquals(
    [
      say({ kind: "cancelJob", id: "3" }),
      say({ kind: "cancelJob", id: 3, time: "5" }),
      say({ kind: "endJob", id: 3, outcome: 1 }),
      say({ kind: "endJob", id: 3, exitStatus: "1" }),
      say({ kind: "updateJob", id: 3 }),
      say({ kind: "updateQueue", queue: null }),
      say({ kind: "changeCapacity", capacity: "4" }),
      say({ kind: "changeNodes", up: "n1" }),
      say({ kind: "cancel", id: 3 }),
    ],
    [
      'cancelJob: id: expected a job id (a number), got "3" (a string)',
      'cancelJob: time: expected a time in seconds (a number), got "5" (a string)',
      "endJob: outcome: expected a string, got 1",
      'endJob: exitStatus: expected a number, got "1" (a string)',
      "updateJob: update: expected an object, got undefined",
      "updateQueue: queue: expected an object, got null",
      'changeCapacity: capacity: expected a number, got "4" (a string)',
      'changeNodes: up: expected a list of node names, got "n1" (a string)',
      "step: expected an input kind (appendJobs, submitJob, replayJobs, advanceTo, " +
      "runUntilExclusive, runToCompletion, flush, finish, cancelJob, endJob, updateJob, " +
      'updateQueue, changeCapacity, changeNodes), got "cancel" (a string)',
    ],
  );
});

Deno.test("live inputs: a kind's named creator and Simulation method, where it has them, build the defined input", () => {
  const creators = inputs as unknown as Record<string, (...a: unknown[]) => Input>;
  const methods = Simulation.prototype as unknown as Record<string, unknown>;
  let named = 0;
  for (const kind of KINDS) {
    // Both or neither: the named calls are sugar over liveInputFromArgs and pushLiveEvent.
    assertEquals(typeof creators[kind], typeof methods[kind], kind);
    if (typeof creators[kind] !== "function") continue;
    named++;
    const input = sampleOf(kind);
    assertEquals(creators[kind](...argsOf(kind, input)), input, kind);
    // Left-out optional fields are left out of the input, not set to undefined.
    const fields = LIVE_INPUTS[kind].fields as LiveInputTable[string]["fields"];
    const required = Object.fromEntries(
      Object.entries(input).filter(([n]) => n === "kind" || !fields[n].optional),
    );
    assertEquals(Object.keys(creators[kind](...argsOf(kind, required))), Object.keys(required));
  }
  assertEquals(named, 6, "today's six kinds each have their named calls");
});

Deno.test("live inputs: Simulation.pushLiveEvent takes any kind as data, and only live kinds", () => {
  const sim = new Simulation({ totalNodes: 4 });
  sim.appendJobs([{ submitTime: 0, numNodes: 4, timeLimit: 10 }, {
    submitTime: 0,
    numNodes: 4,
    timeLimit: 10,
  }]);
  sim.advanceTo(0);
  // Every kind passes pushLiveEvent's kind check (an event that cannot apply is refused after it).
  for (const kind of KINDS) {
    try {
      sim.pushLiveEvent({ ...sampleOf(kind), id: 9 } as never);
    } catch (e) {
      assert(
        e instanceof EvtsimError && !e.message.startsWith("pushLiveEvent: kind"),
        `${kind}: ${e}`,
      );
    }
  }
  sim.pushLiveEvent({ kind: "updateJob", id: 1, update: { priority: 3 } });
  sim.pushLiveEvent({ kind: "changeCapacity", capacity: 2, time: 4 });
  sim.pushLiveEvent({ kind: "endJob", id: 0, time: 5, outcome: "killed" });
  assertEquals(
    usageMessage(() => sim.pushLiveEvent({ kind: "advanceTo", time: 9 } as never)),
    "pushLiveEvent: kind: expected a live-event kind (cancelJob, endJob, updateJob, " +
      'updateQueue, changeCapacity, changeNodes), got "advanceTo" (a string)',
  );
  const rows = sim.finish().jobs;
  assertEquals([rows[0].endTime, rows[0].outcome], [5, "killed"]);
  // Capacity 2 from 4: job 1 (4 nodes) waits for the capacity to come back, which never happens.
  assertEquals(rows.length, 1);
});

Deno.test("live inputs: every kind is written to a .replay log and read back as it was given", () => {
  for (const kind of KINDS) {
    const input = sampleOf(kind) as Input;
    const line = encode.event(0, 0, input);
    const parsed = MESSAGE_SCHEMAS.event.safeParse(JSON.parse(line));
    assert(parsed.success, `${kind}: ${line}`);
    assertEquals(inputOf(parsed.data.input), input, kind);
    // The log's fields are in the definition's order.
    assertEquals(
      Object.keys(JSON.parse(line).input),
      ["kind", ...Object.keys(LIVE_INPUTS[kind].fields)],
    );
    // A log line with an unknown field is refused.
    assert(!InputSchema.safeParse({ ...JSON.parse(line).input, surely_not: 1 }).success, kind);
  }
  // The schema's kinds: the reducer's own, then the table's in its order.
  assertEquals(
    InputSchema.options.map((o) => o.shape.kind.value).slice(-KINDS.length),
    KINDS,
  );
});

Deno.test("live inputs: a node failure (changeNodes failed) is written to the log, not dropped", () => {
  const line = encode.event(0, 0, inputs.changeNodes({ failed: ["n1"], time: 9 }));
  assertEquals(JSON.parse(line).input, { kind: "changeNodes", failed: ["n1"], time: 9 });
});

Deno.test("live inputs: the REPL's names of every kind are breakpoint types", () => {
  for (const kind of KINDS) {
    for (const name of LIVE_INPUTS[kind].repl) {
      assert((EVENT_TYPES as readonly string[]).includes(name), `${kind}: ${name}`);
    }
  }
});

// Where a front does not carry a field, and why (a test fails on any other gap).
const KNOWN_GAPS: Readonly<Record<string, string>> = {
  "grpc changeNodes.failed":
    "DR_EVT's gRPC protocol has no failing nodes; HTTP's capacity route has them",
};

Deno.test("live inputs: the HTTP front has a route for every kind, whose body carries every field", async () => {
  const app = httpApp(new SessionHost(), { version: "test" });
  const doc = await (await app.request("/openapi.json")).json();
  type Schema = { $ref?: string; properties?: Record<string, unknown> };
  const resolve = (s: Schema): Schema =>
    s.$ref === undefined ? s : doc.components.schemas[s.$ref.split("/").pop()!];
  const missing: string[] = [];
  for (const kind of KINDS) {
    const def = LIVE_INPUTS[kind] as LiveInputTable[string];
    if (def.http === null) continue;
    const [method, path] = def.http.split(" ");
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (op === undefined) {
      missing.push(`http ${kind}: no route ${def.http}`);
      continue;
    }
    const body = resolve(op.requestBody.content["application/json"].schema);
    const props = Object.keys(body.properties ?? {});
    for (const [name, field] of Object.entries(def.fields)) {
      // A job id is the path's {job}; a job update's fields are the body's own.
      const carried = field.type === "jobId"
        ? path.includes("{job}")
        : field.type === "jobUpdate"
        ? ["priority", "queue"].every((k) => props.includes(k))
        : props.includes(name);
      if (!carried && KNOWN_GAPS[`http ${kind}.${name}`] === undefined) {
        missing.push(`http ${kind}.${name}`);
      }
    }
  }
  assertEquals(missing, []);
});

Deno.test("live inputs: the gRPC request of each kind that has one carries every field", async () => {
  const proto = await Deno.readTextFile(new URL("api/service/dr_evt_service.proto", ROOT));
  const missing: string[] = [];
  for (const kind of KINDS) {
    const def = LIVE_INPUTS[kind];
    if (def.grpc === null) continue;
    const message = def.grpc.replace(/(^|_)(\w)/g, (_, _u, c: string) => c.toUpperCase()) +
      "Request";
    const body = proto.match(new RegExp(`message ${message} \\{([^}]*)\\}`))?.[1];
    assert(body !== undefined, `${kind}: the proto has no ${message}`);
    assert(proto.includes(`${message} ${def.grpc} =`), `${kind}: no ${def.grpc} request`);
    for (const name of Object.keys(def.fields)) {
      const snake = name.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
      const carried = new RegExp(`\\b${snake} = \\d+;`).test(body);
      if (!carried && KNOWN_GAPS[`grpc ${kind}.${name}`] === undefined) {
        missing.push(`grpc ${kind}.${name}`);
      }
    }
  }
  assertEquals(missing, []);
});

// A kind that does not exist, defined as an entry of the table would be.
const EXTRA: LiveInputTable = {
  ...LIVE_INPUTS,
  holdJob: {
    summary: "hold a waiting job until released",
    fields: {
      id: { type: "jobId", optional: false, doc: "the job" },
      until: { type: "time", optional: true, doc: "when it is released" },
      queue: { type: "queueDef", optional: true, doc: "a queue to move it to" },
    },
    params: ["id", ["until", "queue"]],
    stored: "hold",
    seed: "JOB_UPDATE",
    repl: ["JOB_UPDATE"],
    http: "POST /sessions/{id}/jobs/{job}/hold",
    grpc: null,
  },
};

Deno.test("live inputs: an extra definition flows through the check, the creator and the log without other edits", () => {
  // The creator: arguments in `params` order, fields in the definition's order.
  const input = liveInputFromArgs(
    "holdJob",
    [4, { queue: { name: "q", maxRunning: undefined } }],
    EXTRA,
  );
  assertEquals(input, { kind: "holdJob", id: 4, queue: { name: "q", maxRunning: undefined } });
  assertEquals(liveInputFromArgs("holdJob", [4], EXTRA), { kind: "holdJob", id: 4 });
  // The check.
  checkLiveInput("holdJob", input, EXTRA);
  assertEquals(
    usageMessage(() => checkLiveInput("holdJob", { ...input, until: "soon" }, EXTRA)),
    'holdJob: until: expected a time in seconds (a number), got "soon" (a string)',
  );
  checkLiveInputKind("holdJob", "pushLiveEvent: kind", EXTRA);
  assertThrows(
    () => checkLiveInputKind("holdJob", "pushLiveEvent: kind"),
    'expected a live-event kind (cancelJob, endJob, updateJob, updateQueue, changeCapacity, changeNodes), got "holdJob"',
  );
  // The log: written JSON-safe (an explicit "no limit" is null), read back as given.
  const data = liveInputData(input, EXTRA);
  assertEquals(
    JSON.stringify(data),
    '{"kind":"holdJob","id":4,"queue":{"name":"q","maxRunning":null}}',
  );
  const schema = liveInputSchemas(EXTRA).find((s) => s.shape.kind.value === "holdJob");
  assert(schema !== undefined);
  const parsed = schema.safeParse(JSON.parse(JSON.stringify(data)));
  assert(parsed.success, JSON.stringify(parsed.error?.issues));
  assertEquals(liveInputOfData(parsed.data as never, EXTRA), input);
  assert(!schema.safeParse({ ...data, id: -1 }).success, "a job id is a whole number ≥ 0");
  assert(!schema.safeParse({ kind: "holdJob" }).success, "id is required");
});

Deno.test("live inputs: an extra definition's stored event and its snapshot form are derived too", () => {
  // What step gives the handler: the stored kind, then the given fields in order.
  const queue = { name: "q", maxRunning: undefined };
  const given = { kind: "holdJob", queue, until: undefined, id: 4 };
  const event = liveEventInput(given as never, EXTRA);
  assertEquals(JSON.stringify(Object.keys(event)), '["kind","id","queue"]');
  assertEquals(event as unknown, { kind: "hold", id: 4, queue });
  // What a snapshot writes of it waiting in the state, and reads back.
  const waiting = { kind: "hold", time: 9, seq: 0, id: 4, until: 12, queue };
  const data = liveEventData(waiting as never, EXTRA);
  assertEquals(
    JSON.stringify(data),
    '{"kind":"hold","time":9,"seq":0,"id":4,"until":12,"queue":{"name":"q","maxRunning":null}}',
  );
  assertEquals(liveEventOfData(JSON.parse(JSON.stringify(data)), EXTRA) as unknown, waiting);
});

Deno.test("live inputs: step has one branch for every live input, no case or stored event per kind", async () => {
  const source = await Deno.readTextFile(new URL("core/step.ts", ROOT));
  const perKind = KINDS.flatMap((kind) => {
    const stored = LIVE_INPUTS[kind].stored;
    return [`"${kind}"`, `kind: "${stored}"`].filter((s) => source.includes(s));
  });
  assertEquals(perKind, []);
  assert(source.includes("if (isLiveInput(input))"), "the one branch");
});

// Every kind waiting in the state and in a snapshot, byte for byte as the
// per-kind cases of step built them before the branch was derived (ends
// with their defaults filled in, a node change without failures without
// `failed`, a queue's explicit "no limit" null in the snapshot).
const PINNED_STORED = [
  [
    '{"kind":"end","time":0,"seq":2,"id":1,"outcome":"completed","exitStatus":0}',
    '{"kind":"updateJob","time":5,"seq":3,"id":2,"update":{"priority":4}}',
    '{"kind":"updateQueue","time":6,"seq":4,"queue":{"name":"q"}}',
    '{"kind":"cancel","time":10,"seq":0,"id":2}',
    '{"kind":"end","time":20,"seq":1,"id":0,"outcome":"failed","exitStatus":1}',
    '{"kind":"nodes","time":30,"seq":5,"down":["n2"],"up":[],"failed":["n1"]}',
    '{"kind":"nodes","time":40,"seq":6,"down":[],"up":["n2"]}',
  ],
  [
    '{"kind":"end","time":0,"seq":2,"id":1,"outcome":"completed","exitStatus":0}',
    '{"kind":"updateJob","time":5,"seq":3,"id":2,"update":{"priority":4}}',
    '{"kind":"updateQueue","time":6,"seq":4,"queue":{"name":"q","maxRunning":null}}',
    '{"kind":"cancel","time":10,"seq":0,"id":2}',
    '{"kind":"end","time":20,"seq":1,"id":0,"outcome":"failed","exitStatus":1}',
    '{"kind":"nodes","time":30,"seq":5,"down":["n2"],"up":[],"failed":["n1"]}',
    '{"kind":"nodes","time":40,"seq":6,"down":[],"up":["n2"]}',
  ],
  [
    '{"kind":"capacity","time":0,"seq":1,"capacity":3}',
    '{"kind":"capacity","time":10,"seq":0,"capacity":2}',
  ],
];

Deno.test("live inputs: every kind pushed through step waits in the state and a snapshot as before, byte for byte", () => {
  const model = topologyCluster([
    { name: "n1", capacity: { cpu: 8 } },
    { name: "n2", capacity: { cpu: 8 } },
  ]);
  const job = { submitTime: 0, numNodes: 0, timeLimit: 100, demand: one };
  const inputs: Input[] = [
    { kind: "appendJobs", jobs: [job, job, job] },
    { kind: "advanceTo", time: 0 },
    { kind: "cancelJob", id: 2, time: 10 },
    { kind: "endJob", id: 0, time: 20, outcome: "failed" },
    { kind: "endJob", id: 1 },
    { kind: "updateJob", id: 2, update: { priority: 4 }, time: 5 },
    { kind: "updateQueue", queue: { name: "q", maxRunning: undefined }, time: 6 },
    { kind: "changeNodes", down: ["n2"], failed: ["n1"], time: 30 },
    { kind: "changeNodes", up: ["n2"], time: 40 },
  ];
  const machine = inputs.reduce(
    (s, input) => step(s, input).state,
    initialState({ totalNodes: 2, resourceModel: model, queues: [{ name: "q" }] }),
  );
  const counted = [
    { kind: "changeCapacity", capacity: 2, time: 10 },
    { kind: "changeCapacity", capacity: 3 },
  ].reduce((s, input) => step(s, input as Input).state, initialState({ totalNodes: 4 }));
  const lines = (events: readonly unknown[]) => events.map((e) => JSON.stringify(e));
  // A snapshot is opaque to its users: its live events are read from its JSON.
  const stored = (s: SimState) =>
    (saveSnapshot(s) as unknown as { liveEvents: unknown[] }).liveEvents;
  assertEquals(
    [
      lines(machine.liveEvents.toArray()),
      lines(stored(machine)),
      lines(counted.liveEvents.toArray()),
    ],
    PINNED_STORED,
  );
  assertEquals(lines(stored(counted)), PINNED_STORED[2]);
  // Every kind of the table is among them.
  const kinds = new Set(
    [...machine.liveEvents.toArray(), ...counted.liveEvents.toArray()].map((e) => e.kind),
  );
  assertEquals([...kinds].sort(), KINDS.map((k) => LIVE_INPUTS[k].stored as string).sort());
});

// The rows of the names table of docs/seed-003-mapping.md, from the definitions.
function namesRows(): string[][] {
  const code = (s: string) => "`" + s + "`";
  return KINDS.map((kind) => {
    const d = LIVE_INPUTS[kind];
    return [
      code(kind),
      Object.keys(d.fields).map(code).join(", "),
      code(d.stored),
      code(d.seed),
      d.repl.length === 0 ? "—" : d.repl.map(code).join(", "),
      d.http === null ? "—" : code(d.http),
      d.grpc === null ? "—" : code(d.grpc),
    ];
  });
}

Deno.test("live inputs: the names table of docs/seed-003-mapping.md is the definitions'", async () => {
  const page = await Deno.readTextFile(new URL("docs/seed-003-mapping.md", ROOT));
  const at = page.indexOf("### Live events: one name each");
  assert(at >= 0, "the page has no names table");
  const rows = page.slice(at).split("\n").filter((l) => l.startsWith("| `"))
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim().replaceAll("\\|", "|")));
  assertEquals(rows.slice(0, KINDS.length), namesRows());
});

Deno.test("live inputs: every kind waiting in the state is stored in a snapshot and read back (schema from the definitions)", () => {
  const model = topologyCluster([
    { name: "n1", capacity: { cpu: 8 } },
    { name: "n2", capacity: { cpu: 8 } },
  ]);
  const sim = new Simulation({ totalNodes: 2, resourceModel: model, queues: [{ name: "q" }] });
  sim.appendJobs([{ submitTime: 0, numNodes: 0, timeLimit: 100, demand: one }, {
    submitTime: 0,
    numNodes: 0,
    timeLimit: 100,
    demand: one,
  }, { submitTime: 0, numNodes: 0, timeLimit: 100, demand: one }]);
  sim.advanceTo(0);
  // Pending events of every kind but changeCapacity (refused on a machine), then one of it.
  sim.cancelJob(2, 10);
  sim.endJob(0, 20, { outcome: "failed" });
  sim.updateJob(2, { priority: 4 }, 5);
  sim.updateQueue({ name: "q", maxRunning: undefined }, 6);
  sim.changeNodes({ down: ["n2"], failed: ["n1"], time: 30 });
  const counted = new Simulation({ totalNodes: 4 });
  counted.changeCapacity(2, 10);
  const stored = [sim.state, counted.state].flatMap((state) => {
    const value = JSON.parse(JSON.stringify(saveSnapshot(state)));
    const back = saveSnapshot(loadSnapshot(value));
    assertEquals(JSON.parse(JSON.stringify(back)), value);
    return value.liveEvents.map((e: { kind: string }) => e.kind);
  });
  assertEquals(
    stored.sort(),
    KINDS.map((k) => LIVE_INPUTS[k].stored as string).sort(),
  );
});

const one = { replicas: 1, perReplica: { cpu: 8 } };
