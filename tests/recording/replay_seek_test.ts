// Recordings with real time in them (issue 27 item 2): `simulate --record`
// writes an event per instant or advance slice and a snapshot every
// --snapshot_interval events, so `replay --start_time T` starts from the
// snapshot at or before T and re-simulates only the events after it; the
// snapshot count grows with the run. The property: for random live runs,
// starting at any time T from the nearest snapshot gives the decisions the
// full re-simulation gives from that snapshot on (and so from T on).

import fc from "fast-check";
import { Resimulation } from "../../api/resimulation.ts";
import { inputOf, type LogEntry } from "../../io/replay_log.ts";
import { parseLog, type ReadLog } from "../../io/replay_reader.ts";
import { type DecisionRow, Simulation } from "../../mod.ts";
import {
  applyToSimulation,
  arbLivePlan,
  configOf,
  drivePlan,
  type LivePlan,
  REGISTRY,
} from "../_recording_helpers.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);
const ROOT = new URL("../../", import.meta.url).pathname;
const KTH_500 = `${ROOT}tests/fixtures/swf/kth_500.swf.gz`;

async function record(dir: string, name: string, extra: string[]): Promise<ReadLog> {
  const log = `${dir}/${name}.replay`;
  const r = await runCli([
    "simulate",
    KTH_500,
    "-o",
    `${dir}/${name}.csv`,
    "--no_progress",
    "--record",
    log,
    ...extra,
  ]);
  assertEquals(r.code, 0, r.err.join("\n"));
  return parseLog(await Deno.readTextFile(log), log);
}

const count = (log: ReadLog, type: LogEntry["type"]) =>
  log.entries.filter((e) => e.type === type).length;

Deno.test("CLI: --start_time at 90% of a KTH prefix re-simulates at most 15% of the events; snapshots grow with the run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-seek-" });
  try {
    const log = await record(dir, "kth", ["--snapshot_interval", "100"]);
    const events = count(log, "event");
    // One event per instant or slice, not one per 4,096-job chunk.
    assert(events > 500, `only ${events} events for 500 jobs`);
    const end = log.entries.at(-1)!;
    assert(end.type === "end");
    // The trace's span: from its first submit time (the clock starts at 0) to the end.
    const append = log.entries.find((e) => e.type === "event" && e.input.kind === "appendJobs");
    assert(append?.type === "event");
    const input = inputOf(append.input);
    assert(input.kind === "appendJobs");
    const first = input.jobs[0].submitTime;
    const t = Math.floor(first + 0.9 * (end.time - first));
    const r = await runCli(["replay", log.file, "--verify", "--start_time", `${t}`]);
    assertEquals(r.code, 0, r.err.join("\n"));
    const m = /^replayed (\d+) events from the snapshot at time (\d+) /m.exec(r.out.join("\n"));
    assert(m !== null, r.out.join("\n"));
    const replayed = Number(m[1]);
    assert(Number(m[2]) <= t && Number(m[2]) > 0, `snapshot at ${m[2]}, start time ${t}`);
    assert(replayed <= 0.15 * events, `re-simulated ${replayed} of ${events} events`);
    assert(
      r.out.join("\n").includes("verify: every decision matches the recording"),
      r.out.join("\n"),
    );

    // The snapshot count grows with the run: 1 + one per 100 events.
    const sizes: number[] = [];
    for (const jobs of [100, 250, 500]) {
      const l = await record(dir, `j${jobs}`, ["--snapshot_interval", "100", "-j", `${jobs}`]);
      assertEquals(count(l, "snapshot"), 1 + Math.floor(count(l, "event") / 100));
      sizes.push(count(l, "snapshot"));
    }
    assert(sizes[0] > 1 && sizes[0] < sizes[1] && sizes[1] < sizes[2], `snapshots ${sizes}`);
    // The default interval (1000 events) still writes more than the first snapshot.
    const plain = await record(dir, "default", []);
    assertEquals(count(plain, "snapshot"), 1 + Math.floor(count(plain, "event") / 1000));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Records a live plan from its start with the plan's snapshot interval. */
function recordLive(p: LivePlan): { text: string; events: number } {
  let text = "";
  const sim = new Simulation({ ...configOf(p), registry: REGISTRY });
  sim.startRecording({ write: (t) => void (text += t) }, { snapshotInterval: p.snapshotInterval });
  drivePlan(p, (input) => applyToSimulation(sim, input), () => sim.state);
  const events = sim.stopRecording();
  return { text, events };
}

/** Each re-simulated event's decisions, by the event's seq. */
function decisionsBySeq(log: ReadLog, startTime?: number) {
  const sim = new Resimulation({
    log,
    registry: REGISTRY,
    ...(startTime === undefined ? {} : { startTime }),
  });
  const out: { seq: number; decisions: readonly DecisionRow[] }[] = [];
  for (let e = sim.peekEvent(); e !== undefined; e = sim.peekEvent()) {
    out.push({ seq: e.seq, decisions: sim.step()!.rows.decisions });
  }
  return { start: sim.start, steps: out };
}

Deno.test("property: replay --start_time T from the nearest snapshot decides as the full re-simulation from T on; snapshots grow with the run", () => {
  const seen = { seeks: 0, midSnapshots: 0, decisionsAfterT: 0 };
  fc.assert(
    fc.property(arbLivePlan, fc.double({ min: 0, max: 1, noNaN: true }), (p, at) => {
      const rec = recordLive(p);
      const log = parseLog(rec.text, "live.replay");
      const snapshots = log.entries.flatMap((e) => e.type === "snapshot" ? [e] : []);
      // The snapshot count grows with the run: the first, then one per interval.
      assertEquals(snapshots.length, 1 + Math.floor(rec.events / p.snapshotInterval));
      const end = log.entries.at(-1)!;
      assert(end.type === "end");
      const first = snapshots[0];
      const t = Math.floor(first.time + at * (end.time - first.time));
      const full = decisionsBySeq(log);
      const from = decisionsBySeq(log, t);
      // The nearest snapshot: the last one at or before T.
      const nearest = snapshots.filter((s) => s.time <= t).at(-1)!;
      assertEquals(from.start.seq, nearest.seq);
      // Only the events after it are re-simulated, and they decide as in the full run.
      const tail = full.steps.filter((s) => s.seq >= nearest.seq);
      assertEquals(from.steps, tail);
      // So every decision from T on (later than T: one at T may precede the snapshot) is the same.
      const after = (steps: typeof tail) =>
        steps.flatMap((s) => s.decisions).filter((d) => d.time > t);
      assertEquals(after(from.steps), after(full.steps));
      seen.seeks++;
      if (nearest.seq > 0) seen.midSnapshots++;
      seen.decisionsAfterT += after(from.steps).length;
    }),
    { seed: 2727, numRuns: RUNS },
  );
  // The runs must have started from snapshots other than the first, with decisions after T.
  assert(seen.midSnapshots > RUNS / 3, `only ${seen.midSnapshots} seeks past the first snapshot`);
  assert(seen.decisionsAfterT > RUNS, `only ${seen.decisionsAfterT} decisions after T`);
});
