// Policies that cannot corrupt the engine (issue 32 items 3, 8, 10, 14): what
// a picker or admission policy is handed is read-only in effect, a policy
// that throws, returns a promise or decides after its session ended stops
// the run with one line naming it, and a refusal names the component at
// fault. Through the library (Simulation, initialState with withPolicies)
// and through `evtsim simulate --policy_module` (in-process and as a process).

import {
  type Admission,
  type AdmissionSession,
  EvtsimError,
  initialState,
  type JobRecord,
  type Picker,
  Simulation,
  step,
  withPolicies,
} from "../../mod.ts";
import { withDecisions } from "../../core/reconfigure.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli, runCliProcess } from "../_cli.ts";

/** The EvtsimError `fn` throws (fails if it throws anything else or nothing). */
function refusal(fn: () => unknown): EvtsimError {
  try {
    fn();
  } catch (e) {
    assert(e instanceof EvtsimError, `expected an EvtsimError, got ${e}`);
    return e;
  }
  throw new Error("expected the call to throw");
}

const admission = (
  name: string,
  runSession: (s: AdmissionSession) => unknown,
): Admission => ({ name, runSession } as Admission);

/** Two 8-node jobs on 8 nodes: they must not both run at once. */
function twoFullJobs(a: Admission): Simulation {
  const sim = new Simulation({ totalNodes: 8, admission: a });
  sim.appendJobs([
    { submitTime: 0, numNodes: 8, timeLimit: 100 },
    { submitTime: 0, numNodes: 8, timeLimit: 100 },
  ]);
  return sim;
}

Deno.test("library: a policy cannot write the records it is handed (the engine keeps its node counts)", () => {
  const shrink = admission("shrink", (s) => {
    const j = s.next() as { numNodes: number } & JobRecord | undefined;
    if (j === undefined) return;
    j.numNodes = 1;
    s.dispatch(j, false);
  });
  const sim = twoFullJobs(shrink);
  const before = sim.state;
  const e = refusal(() => sim.advanceTo(0));
  assertEquals(e.kind, "policy");
  assert(
    e.message.startsWith("policy 'shrink' failed at t=0: Cannot assign to read only property"),
    e.message,
  );
  assert(sim.state === before, "the failed step changed nothing");
  // The running set a policy reads: its entries are frozen, and updating it
  // gives the policy a new set while the engine's stays as it was.
  const seen: number[] = [];
  const meddle = admission("meddle", (s) => {
    const r = s.running.first() as { numNodes: number } | undefined;
    if (r !== undefined) {
      let threw = false;
      try {
        r.numNodes = 0;
      } catch {
        threw = true;
      }
      assert(threw, "a running entry is frozen");
      const grown = s.running.add({
        id: 99,
        beginTime: 0,
        numNodes: 1,
        timeLimit: 1,
        projectedEnd: 1,
      });
      assertEquals([grown.size, s.running.size], [2, 1]);
      s.running.deleteFirst();
    }
    seen.push(s.running.size);
    for (let j = s.next(); j !== undefined; j = s.next()) {
      if (j.numNodes <= s.free) s.dispatch(j, false);
      else s.pend(j, { code: "insufficient_nodes", message: "no room" });
    }
  });
  const ok = twoFullJobs(meddle);
  const begins = ok.finish().jobs.map((r) => r.beginTime);
  assertEquals(begins, [0, 100]);
  assert(seen.includes(1), `the policy saw the running job: ${seen}`);
});

Deno.test("library: the session hides the engine (no working state reachable through it)", () => {
  let fields: string[] = [];
  const peek = admission("peek", (s) => {
    fields = Object.keys(s);
    const o = s as unknown as Record<string, unknown>;
    assertEquals([o.w, o.session, o.current], [undefined, undefined, undefined]);
  });
  twoFullJobs(peek).advanceTo(0);
  assert(
    fields.every((f) =>
      ["now", "queuesConfigured", "endsByShadow", "stableOrder", "search"].includes(f)
    ),
    `${fields}`,
  );
});

Deno.test("library: a picker's hooks cannot change the records either", () => {
  // A picker that tries to shrink every job it is given.
  const jobs: JobRecord[] = [];
  const shrinking: Picker<null> = {
    name: "shrinking",
    init: () => null,
    onQueueUpdate: (s) => s,
    onJobPush: (s, job) => {
      (job as { numNodes: number }).numNodes = 1;
      jobs.push(job);
      return s;
    },
    onJobStateChange: (s) => s,
    onJobUpdate: (s) => s,
    size: () => jobs.length,
    pending: () => jobs,
    beginSession: () => ({
      nextJob: () => jobs.shift(),
      onDispatch: () => {},
      onPend: () => {},
      endSession: () => null,
    }),
  };
  const registry = withPolicies({ pickers: [shrinking as Picker] });
  const s = initialState({ totalNodes: 8, picker: "shrinking" }, { registry });
  const r = step(s, { kind: "appendJobs", jobs: [{ submitTime: 0, numNodes: 8, timeLimit: 10 }] });
  const e = refusal(() => step(r.state, { kind: "advanceTo", time: 0 }));
  assert(
    e.message.startsWith("policy 'shrinking' failed at t=0: Cannot assign to read only property"),
    e.message,
  );
});

Deno.test("library: whatever a policy throws is one error naming it and the clock", () => {
  const cases: [string, (s: AdmissionSession) => unknown, string][] = [
    ["boom", () => {
      throw new Error("boom\nsecond line");
    }, "policy 'boom' failed at t=0: boom"],
    ["a_string", () => {
      throw "bad thing";
    }, "policy 'a_string' failed at t=0: bad thing"],
    ["a_number", () => {
      throw 42;
    }, "policy 'a_number' failed at t=0: 42 was thrown"],
    ["deep", () => {
      const f = (n: number): number => f(n + 1) + 1;
      f(0);
    }, "policy 'deep' failed at t=0: Maximum call stack size exceeded"],
    ["hostile", () => {
      throw {
        get message() {
          throw new Error("no");
        },
      };
    }, "policy 'hostile' failed at t=0: an object was thrown"],
  ];
  for (const [name, run, message] of cases) {
    const sim = twoFullJobs(admission(name, run));
    const e = refusal(() => sim.advanceTo(0));
    assertEquals([e.kind, e.message], ["policy", message]);
    assert(e.cause !== undefined, "the thrown value is kept as the cause");
  }
  // A picker's own failure names the picker, also when it fails inside the
  // admission policy's session (in nextJob).
  const failing: Picker<number> = {
    name: "failing_picker",
    init: () => 0,
    onQueueUpdate: (s) => s,
    onJobPush: (s) => s + 1,
    onJobStateChange: (s) => s,
    onJobUpdate: (s) => s,
    size: (s) => s,
    pending: () => [],
    beginSession: () => ({
      nextJob: () => {
        throw new TypeError("lost my place");
      },
      onDispatch: () => {},
      onPend: () => {},
      endSession: () => 0,
    }),
  };
  const sim = new Simulation({ totalNodes: 8, picker: failing as Picker });
  sim.appendJob({ submitTime: 3, numNodes: 1, timeLimit: 1 });
  const e = refusal(() => sim.advanceTo(3));
  assertEquals(e.message, "policy 'failing_picker' failed at t=3: lost my place");
});

Deno.test("library: a promise, a kept session or a timer's decision is an error, never dropped", async () => {
  const asyncPolicy = admission("later", async (s) => {
    await null;
    const j = s.next();
    if (j !== undefined) s.dispatch(j, false);
  });
  const e = refusal(() => twoFullJobs(asyncPolicy).advanceTo(0));
  assertEquals(
    e.message,
    "policy 'later' returned a promise from runSession at t=0: policies are synchronous, every decision must be made before the hook returns",
  );
  // A picker hook that returns a promise (its state becomes one) is caught at the next session.
  const asyncPicker = {
    name: "async_picker",
    init: () => [],
    onQueueUpdate: (s: unknown) => s,
    onJobPush: async (s: unknown) => await s,
    onJobStateChange: (s: unknown) => s,
    onJobUpdate: (s: unknown) => s,
    size: () => 1,
    pending: () => [],
    beginSession: () => ({
      nextJob: () => undefined,
      onDispatch: () => {},
      onPend: () => {},
      endSession: () => [],
    }),
  } as unknown as Picker;
  const ap = new Simulation({ totalNodes: 8, picker: asyncPicker });
  ap.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 1 });
  assert(
    refusal(() => ap.advanceTo(0)).message.startsWith(
      "policy 'async_picker' returned a promise from a hook at t=0",
    ),
  );
  // A session kept and used in a later one fails at once.
  let kept: AdmissionSession | undefined;
  const keeper = admission("keeper", (s) => {
    if (kept !== undefined) kept.next();
    kept = s;
  });
  const sim = new Simulation({ totalNodes: 8, admission: keeper });
  sim.appendJobs([{ submitTime: 0, numNodes: 8, timeLimit: 10 }, {
    submitTime: 5,
    numNodes: 1,
    timeLimit: 10,
  }]);
  sim.advanceTo(0);
  const k = refusal(() => sim.advanceTo(5));
  assert(
    k.message.startsWith(
      "policy 'keeper' called next on its session of t=0 after runSession returned",
    ),
    k.message,
  );
  // A timer's decision: the call fails, and the run refuses to go on.
  let timerError: unknown;
  const timer = admission("timer", (s) => {
    setTimeout(() => {
      try {
        const j = s.next();
        if (j !== undefined) s.dispatch(j, false);
      } catch (err) {
        timerError = err;
      }
    }, 0);
  });
  const t = twoFullJobs(timer);
  t.advanceTo(0);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert(timerError instanceof EvtsimError, `the late call threw: ${timerError}`);
  const f = refusal(() => t.finish());
  assertEquals(f, timerError);
  // Also once decisions are switched on (a new configuration object, the same run).
  assertEquals(refusal(() => step(withDecisions(t.state, true), { kind: "finish" })), timerError);
});

Deno.test("library: refusals name the component at fault", () => {
  // Deciding twice on one candidate is the admission policy's fault.
  const twice = admission("twice", (s) => {
    const j = s.next();
    if (j !== undefined) {
      s.dispatch(j, false);
      s.dispatch(j, false);
    }
  });
  const e = refusal(() => twoFullJobs(twice).advanceTo(0));
  assertEquals(
    e.message,
    "admission policy twice started job 0, which is not the candidate just offered (each candidate gets one verdict: dispatch or pend)",
  );
  const nothing = admission("nothing", (s) => s.dispatch(null as unknown as JobRecord, false));
  assert(
    refusal(() => twoFullJobs(nothing).advanceTo(0)).message.startsWith(
      "admission policy nothing started null, which is not the candidate just offered",
    ),
  );
  const pendOther = admission("pend_other", (s) => {
    const j = s.next();
    s.next();
    if (j !== undefined) s.pend(j, { code: "insufficient_nodes", message: "x" });
  });
  assert(
    refusal(() => twoFullJobs(pendOther).advanceTo(0)).message.startsWith(
      "admission policy pend_other pended job 0, which is not the candidate just offered",
    ),
  );
  // A refusal stands even when the policy catches it and carries on.
  const stubborn = admission("stubborn", (s) => {
    for (let j = s.next(); j !== undefined; j = s.next()) {
      try {
        s.dispatch(j, false);
      } catch { /* ignore the refusal */ }
    }
  });
  assertEquals(
    refusal(() => twoFullJobs(stubborn).advanceTo(0)).message,
    "admission policy stubborn started job 1 needing 8 nodes with 0 free",
  );
  // Offering a job that already runs is the picker's fault, with what is wrong:
  // this picker offers job 0 in every session, so the second one at 0 fails.
  let first: JobRecord | undefined;
  const stale: Picker<JobRecord[]> = {
    name: "stale",
    init: () => [],
    onQueueUpdate: (s) => s,
    onJobPush: (s, job) => [...s, job],
    onJobStateChange: (s) => s,
    onJobUpdate: (s) => s,
    size: (s) => s.length,
    pending: (s) => s,
    beginSession: (s) => {
      let i = 0;
      return {
        nextJob: () => {
          first ??= s[0];
          return i++ === 0 ? first : undefined;
        },
        onDispatch: () => {},
        onPend: () => {},
        endSession: () => s,
      };
    },
  };
  const sim = new Simulation({ totalNodes: 8, picker: stale as Picker });
  sim.appendJobs([{ submitTime: 0, numNodes: 1, timeLimit: 10 }]);
  assertEquals(
    refusal(() => sim.advanceTo(0)).message,
    "picker stale offered job 0, which is not waiting (it started at 0)",
  );
});

// ---- through the command ---------------------------------------------------

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n0,8,100,100\n0,8,100,100\n";

async function runModule(dir: string, body: string, admissionName: string, process = false) {
  await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
  await Deno.writeTextFile(`${dir}/p.ts`, body);
  const args = [
    "simulate",
    `${dir}/t.csv`,
    "-n",
    "8",
    "--policy_module",
    `${dir}/p.ts`,
    "--admission",
    admissionName,
    "-o",
    `${dir}/out.csv`,
    "--stats_json",
    `${dir}/stats.json`,
  ];
  return process ? await runCliProcess(args) : await runCli(args);
}

async function assertNoOutputs(dir: string): Promise<void> {
  const left = [];
  for await (const e of Deno.readDir(dir)) left.push(e.name);
  assertEquals(left.sort(), ["p.ts", "t.csv"]);
}

Deno.test("cli: a policy module's faults are one line naming the policy, exit 1, nothing written", async () => {
  const cases: [string, string, RegExp][] = [
    [
      "shrink",
      "runSession(s) { const j = s.next(); if (j) { j.numNodes = 1; s.dispatch(j, false); } }",
      /^evtsim: policy 'shrink' failed at t=0: Cannot assign to read only property 'numNodes'/,
    ],
    [
      "boom",
      'runSession() { throw new Error("boom"); }',
      /^evtsim: policy 'boom' failed at t=0: boom$/,
    ],
    [
      "recurse",
      "runSession() { const f = (n) => f(n + 1) + 1; f(0); }",
      /^evtsim: policy 'recurse' failed at t=0: Maximum call stack size exceeded$/,
    ],
    [
      "later",
      "async runSession(s) { await null; s.next(); }",
      /^evtsim: policy 'later' returned a promise from runSession at t=0/,
    ],
  ];
  for (const [name, method, expected] of cases) {
    const dir = await Deno.makeTempDir({ prefix: "evtsim-policy-safety-" });
    try {
      const r = await runModule(
        dir,
        `export const admissions = [{ name: "${name}", ${method} }];\n`,
        name,
      );
      assertEquals(r.code, 1, r.err.join("\n"));
      assertEquals(r.err.length, 1, r.err.join("\n"));
      assert(expected.test(r.err[0]), r.err[0]);
      await assertNoOutputs(dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("cli (process): a decision from a timer fails the run instead of vanishing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-policy-safety-" });
  try {
    const r = await runModule(
      dir,
      'export const admissions = [{ name: "timer", runSession(s) {\n' +
        "  setTimeout(() => { const j = s.next(); if (j) s.dispatch(j, false); }, 0);\n} }];\n",
      "timer",
      true,
    );
    assertEquals(r.code, 1, r.err.join("\n"));
    assertEquals(r.err.length, 1, r.err.join("\n"));
    assert(
      r.err[0].startsWith(
        "evtsim: policy 'timer' called next on its session of t=0 after runSession returned",
      ),
      r.err[0],
    );
    await assertNoOutputs(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli: --debug adds the stack of what the policy threw (and only then)", async () => {
  // Called through main() directly: tests/_cli.ts fails any run that prints a
  // stack, which is exactly what --debug is for.
  const { main } = await import("../../cli/main.ts");
  const dir = await Deno.makeTempDir({ prefix: "evtsim-policy-safety-" });
  try {
    await Deno.writeTextFile(`${dir}/t.csv`, TRACE);
    await Deno.writeTextFile(
      `${dir}/p.ts`,
      'export const admissions = [{ name: "boom", runSession() { throw new Error("boom"); } }];\n',
    );
    const args = ["simulate", `${dir}/t.csv`, "-n", "8", "--policy_module", `${dir}/p.ts`];
    args.push("--admission", "boom", "-o", `${dir}/out.csv`);
    for (const debug of [false, true]) {
      const err: string[] = [];
      const con = { out: () => {}, err: (l: string) => void err.push(l), isTerminal: false };
      const code = await main(debug ? [...args, "--debug"] : args, con);
      assertEquals([code, err[0]], [1, "evtsim: policy 'boom' failed at t=0: boom"]);
      const frames = err.slice(1);
      if (!debug) assertEquals(frames, []);
      else assert(frames[0]?.includes(`${dir}/p.ts`), err.join("\n"));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
