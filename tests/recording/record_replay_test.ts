// Recording and re-simulation (issue 11): a Simulation driven call by call
// with random live events under every picker × admission policy is
// recorded (from the start or from the middle of the run); re-simulating the
// log reports no mismatch and gives the live run's rows, two re-simulations
// write the same bytes, and re-simulating from any snapshot in the log gives
// exactly what re-simulating from the start gives from that point on.

import fc from "fast-check";
import { Resimulation } from "../../api/resimulation.ts";
import { parseLog, type ReadLog, readLog } from "../../io/replay_reader.ts";
import { Dumper } from "../../io/replay_dump.ts";
import {
  type DecisionRow,
  EvtsimError,
  fileRecordingSink,
  type JobRow,
  type ResourceRow,
  Simulation,
} from "../../mod.ts";
import {
  applyToSimulation,
  arbLivePlan,
  configOf,
  drivePlan,
  type LivePlan,
  REGISTRY,
} from "../_recording_helpers.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 150);

interface Recorded {
  text: string;
  /** Rows the live run emitted while it was recording. */
  jobs: JobRow[];
  resources: ResourceRow[];
  events: number;
}

/** Runs a plan live through Simulation, recording part or all of it. */
function recordLive(p: LivePlan): Recorded {
  let text = "";
  let recording = false;
  const out: Recorded = { text: "", jobs: [], resources: [], events: 0 };
  const sim = new Simulation({ ...configOf(p), registry: REGISTRY }, {
    onJobRow: (r) => void (recording && out.jobs.push(r)),
    onResourceRow: (r) => void (recording && out.resources.push(r)),
  });
  const stopAt = p.recordStopsEarly ? p.recordFrom + 2 : Infinity;
  const start = () => {
    sim.startRecording({ write: (t) => void (text += t) }, {
      snapshotInterval: p.snapshotInterval,
    });
    recording = true;
  };
  if (p.recordFrom === 0) start();
  drivePlan(p, (input) => applyToSimulation(sim, input), () => sim.state, (k) => {
    if (k === p.recordFrom && !recording && k > 0) start();
    if (k === stopAt && recording) {
      out.events = sim.stopRecording();
      recording = false;
    }
  });
  if (!recording && text === "") start(); // the plan had fewer stops than recordFrom
  if (recording) out.events = sim.stopRecording();
  out.text = text;
  return out;
}

function resimulate(log: ReadLog, extra: { startSeq?: number } = {}) {
  let output = "";
  const jobs: JobRow[] = [];
  const resources: ResourceRow[] = [];
  const decisions: DecisionRow[] = [];
  const sim = new Resimulation({
    log,
    registry: REGISTRY,
    verify: true,
    output: { write: (t) => void (output += t) },
    ...extra,
  });
  for (let r = sim.step(); r !== undefined; r = sim.step()) {
    jobs.push(...r.rows.jobs);
    resources.push(...r.rows.resources);
    decisions.push(...r.rows.decisions);
  }
  return { output, jobs, resources, decisions, mismatches: sim.mismatches, counts: sim.counts };
}

function dumpOf(text: string): string[] {
  const dumper = new Dumper();
  return parseLog(text, "out.replay").entries.flatMap((e) => dumper.lines(e));
}

Deno.test("record → re-simulate: zero mismatches, the live rows, byte-identical re-simulations, any snapshot continues as the start does", () => {
  const seen = { mismatchFree: 0, snapshots: 0, decisions: 0, events: 0 };
  fc.assert(
    fc.property(arbLivePlan, (p) => {
      const rec = recordLive(p);
      const log = parseLog(rec.text, "rec.replay");
      assertEquals(log.warnings, []);
      const types = log.entries.map((e) => e.type);
      assertEquals(types.slice(0, 2), ["header", "snapshot"]);
      assertEquals(types[types.length - 1], "end");
      assertEquals(types.filter((t) => t === "event").length, rec.events);

      const a = resimulate(log);
      assertEquals(a.mismatches, []);
      // The schedule of the re-simulation is the live one while it recorded.
      assertEquals(a.jobs, rec.jobs);
      assertEquals(a.resources, rec.resources);
      // The re-simulation's own log is the recording, wall-clock fields aside.
      assertEquals(dumpOf(a.output), dumpOf(rec.text));
      const b = resimulate(log);
      assert(a.output === b.output, "two re-simulations must write the same bytes");

      // From every later snapshot: the same lines from that point on.
      const whole = dumpOf(a.output);
      const snapshotLines = whole.flatMap((l, i) => (l === "snapshot" ? [i] : []));
      let k = 0;
      for (const e of log.entries) {
        if (e.type !== "snapshot") continue;
        const at = snapshotLines[k++];
        if (e === log.entries[1]) continue;
        const from = resimulate(log, { startSeq: e.seq });
        assertEquals(from.mismatches, []);
        const tail = dumpOf(from.output).slice(1); // without its header
        assertEquals(tail, whole.slice(at));
        // Its own log goes on numbering from the snapshot's seq.
        assert(from.output.split("\n")[1].includes(`"seq":${e.seq},`), "start seq");
        seen.snapshots++;
      }
      seen.mismatchFree++;
      seen.decisions += a.decisions.length;
      seen.events += a.counts.events;
    }),
    { seed: 1111, numRuns: RUNS },
  );
  // The runs must have exercised something.
  assert(seen.snapshots > RUNS, `only ${seen.snapshots} mid-stream snapshots`);
  assert(seen.decisions > 8 * RUNS, `only ${seen.decisions} decisions`);
});

Deno.test("re-simulation reports a changed decision with its time, job and both decisions", () => {
  const sim = new Simulation({ totalNodes: 4, backfillPolicy: "easy" });
  let text = "";
  sim.startRecording({ write: (t) => void (text += t) });
  sim.appendJobs([
    { submitTime: 0, numNodes: 4, timeLimit: 10 },
    { submitTime: 1, numNodes: 2, timeLimit: 10 },
    { submitTime: 2, numNodes: 2, timeLimit: 10 },
  ]);
  sim.runToCompletion();
  sim.stopRecording();
  // The log says job 2 started first at 10; the scheduler starts job 1 first.
  const lines = text.trimEnd().split("\n");
  const i = lines.findIndex((l) => l.includes('"time":10,'));
  assert(i > 0, "a session at 10");
  lines[i] = lines[i].replace('["DISPATCH",1,', '["DISPATCH",9,');
  const r = resimulate(parseLog(lines.join("\n") + "\n", "x.replay"));
  assertEquals(r.mismatches.length, 1);
  const m = r.mismatches[0];
  assertEquals([m.time, m.recorded?.jobId, m.resimulated?.jobId], [10, 9, 1]);
});

Deno.test("Simulation recording: start and stop at any time, errors not crashes, a failing sink stops only the recording", () => {
  const sim = new Simulation({ totalNodes: 4 });
  assertEquals(sim.recordingStatus(), { recording: false, events: 0 });
  assertThrows(() => sim.stopRecording(), "not recording");
  sim.appendJob({ submitTime: 0, numNodes: 4, timeLimit: 10 });
  sim.advanceTo(5);
  let text = "";
  sim.startRecording({ write: (t) => void (text += t) }, { snapshotInterval: 0 });
  assert(sim.isRecording);
  const e = assertThrows(() => sim.startRecording({ write: () => {} }), "already recording");
  assert(e instanceof EvtsimError);
  assertThrows(() => sim.initializeTrace(), "must come before");
  sim.appendJob({ submitTime: 6, numNodes: 4, timeLimit: 10 });
  sim.advanceTo(20);
  assertEquals(sim.stopRecording(), 2);
  assert(!sim.isRecording);
  // The recording began with the state at 5: job 0 running, job 1 not yet known.
  const log = parseLog(text, "mid.replay");
  const snap = log.entries[1];
  assert(snap.type === "snapshot" && snap.time === 5 && snap.state.nextJobId === 1);
  assertEquals(resimulate(log).mismatches, []);
  // Decisions were on only for the recording: the caller asked for none.
  assertEquals(sim.finish().decisions, []);
  assertEquals(sim.state.config.decisions, false);

  // A sink that fails stops the recording; the simulation goes on.
  const errors: string[] = [];
  const live = new Simulation({ totalNodes: 4 });
  let writes = 0;
  live.startRecording({
    write: () => {
      if (++writes > 2) throw new Error("disk full");
    },
  }, { onError: (err) => errors.push(err.message) });
  live.appendJob({ submitTime: 0, numNodes: 1, timeLimit: 5 });
  live.advanceTo(1);
  live.advanceTo(2);
  assertEquals(errors, ["disk full"]);
  assertEquals(live.recordingStatus(), {
    recording: false,
    events: 1,
    startedAt: 0,
    error: "disk full",
  });
  assertThrows(() => live.stopRecording(), "not recording");
  live.advanceTo(10);
  assertEquals(live.finish().jobs.length, 1);
  // A sink that fails at once: nothing records.
  assertThrows(() =>
    new Simulation({ totalNodes: 4 }).startRecording({
      write: () => {
        throw new Error("read-only");
      },
    }), "cannot write the recording: read-only");
  // Bad options are usage errors.
  assertThrows(() => sim.startRecording({ write: () => {} }, { snapshotInterval: -1 }), "interval");
});

Deno.test("live ≡ simulation: a Simulation driven call by call, recorded to a file, passes replay --verify and re-simulates to the live schedule", async () => {
  const path = await Deno.makeTempFile({ suffix: ".replay" });
  const live = new Simulation({
    totalNodes: 16,
    runTimeMode: "external",
    queues: [{ name: "batch" }, { name: "debug", priority: 5, maxRunning: 2 }],
  });
  live.startRecording(fileRecordingSink(path), { snapshotInterval: 3 });
  // A day in the life of a live scheduler: jobs arrive, some are cancelled,
  // the batch system reports ends (one failed, one killed), an operator
  // raises a priority and closes a queue, a node rack goes away and returns.
  let t = 0;
  const ids: number[] = [];
  for (let k = 0; k < 30; k++) {
    t += k % 3;
    ids.push(live.appendJob({
      submitTime: t,
      numNodes: 1 + ((k * 7) % 9),
      timeLimit: 20 + (k % 5) * 10,
      queue: k % 4 === 0 ? "debug" : "batch",
    }));
    live.advanceTo(t);
    const running = live.state.running.toArray();
    if (k % 5 === 4 && running.length > 0) {
      const outcome = (["completed", "failed", "killed"] as const)[k % 3];
      live.endJob(running[0].id, t, { outcome });
    }
    if (k % 7 === 6) {
      const waiting = [...live.state.picker.pending(live.state.pickerState)];
      if (waiting.length > 1) live.cancelJob(waiting[1].id);
      if (waiting.length > 2) live.updateJob(waiting[2].id, { priority: 3 });
    }
    if (k === 12) live.updateQueue({ name: "debug", open: false }, t + 4);
    if (k === 20) live.updateQueue({ name: "debug", open: true });
    if (k === 15) live.changeCapacity(8, t + 1);
    if (k === 25) live.changeCapacity(16);
  }
  // The batch system reports the remaining ends as they come.
  for (let guard = 0; guard < 100 && live.state.running.size > 0; guard++) {
    const first = live.state.running.first()!;
    t = Math.max(t, first.beginTime) + 5;
    live.endJob(first.id, t);
    live.advanceTo(t);
  }
  const out = live.finish();
  assert(live.stopRecording() > 60, "events recorded");
  assert(
    out.jobs.some((r) => r.outcome === "cancelled") && out.jobs.some((r) => r.outcome === "failed"),
  );

  const cli = await runCli(["replay", path, "--verify"]);
  assertEquals(cli.code, 0, cli.out.join("\n") + cli.err.join("\n"));
  assert(cli.out.join("\n").includes("verify: every decision matches the recording"));
  const re = resimulate(readLog(path));
  assertEquals(re.mismatches, []);
  assertEquals(re.jobs, [...out.jobs]);
  assertEquals(re.resources, [...out.resources]);
  await Deno.remove(path);
});
