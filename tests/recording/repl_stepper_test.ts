// The REPL's stepping (cli/_repl_stepper.ts) on random recorded live
// sessions: stepping piece by piece, going back by events and by sessions
// and forward again, with the output open from the start, ends with the
// bytes a non-interactive re-simulation writes, the same state, no
// mismatch under verify and the same counts; an output opened in the
// middle is a log that re-simulates cleanly; the history is bounded.

import fc from "fast-check";
import { Resimulation } from "../../api/resimulation.ts";
import { ReplError, type ReplOutput, STATE_EVERY, Stepper } from "../../cli/_repl_stepper.ts";
import { parseLog } from "../../io/replay_reader.ts";
import { saveSnapshot, Simulation } from "../../mod.ts";
import {
  applyToSimulation,
  arbLivePlan,
  configOf,
  drivePlan,
  type LivePlan,
  REGISTRY,
} from "../_recording_helpers.ts";
import { assert, assertEquals, assertThrows } from "../_assert.ts";

const RUNS = Number(Deno.env.get("EVTSIM_PROPERTY_RUNS") ?? 100);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** An output in memory, as bytes. */
export function memoryOutput(
  path = "mem.replay",
): ReplOutput & { text(): string; closed: boolean } {
  let bytes = new Uint8Array(0);
  const o = {
    path,
    closed: false,
    write(text: string): number {
      const b = encoder.encode(text);
      const next = new Uint8Array(bytes.length + b.length);
      next.set(bytes);
      next.set(b, bytes.length);
      bytes = next;
      return b.length;
    },
    truncate(n: number): void {
      assert(n <= bytes.length, `truncate to ${n} of ${bytes.length} bytes`);
      bytes = bytes.slice(0, n);
    },
    close(): void {
      o.closed = true;
    },
    text: () => decoder.decode(bytes),
  };
  return o;
}

/** Records a plan run live, from the start. */
function recordLive(p: LivePlan): string {
  let text = "";
  const sim = new Simulation({ ...configOf(p), registry: REGISTRY });
  sim.startRecording({ write: (t) => void (text += t) }, { snapshotInterval: p.snapshotInterval });
  drivePlan(p, (input) => applyToSimulation(sim, input), () => sim.state);
  sim.stopRecording();
  return text;
}

function reference(text: string) {
  let output = "";
  const sim = new Resimulation({
    log: parseLog(text, "rec.replay"),
    registry: REGISTRY,
    verify: true,
    output: { write: (t) => void (output += t) },
  });
  sim.runAll();
  return { output, state: sim.state, counts: sim.counts, mismatches: sim.mismatches };
}

function stepper(text: string, history: number): Stepper {
  return new Stepper(
    new Resimulation({ log: parseLog(text, "rec.replay"), registry: REGISTRY }),
    history,
  );
}

function runToEnd(s: Stepper): void {
  while (!s.at.ended) s.apply();
}

type Op = { kind: "step"; n: number } | { kind: "back"; n: number } | {
  kind: "backSessions";
  n: number;
};

const arbOps: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant("step" as const), n: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant("back" as const), n: fc.integer({ min: 1, max: 10 }) }),
    fc.record({ kind: fc.constant("backSessions" as const), n: fc.integer({ min: 1, max: 3 }) }),
  ),
  { maxLength: 12 },
);

/** Plays the operations; returns how many went back and how many of those cut the output. */
function play(s: Stepper, ops: readonly Op[], out: { text(): string }): [number, number] {
  let backs = 0;
  let cuts = 0;
  // The state first seen at each position: going back must find the same one.
  const seen = new Map<number, string>([[0, JSON.stringify(saveSnapshot(s.at.state))]]);
  for (const op of ops) {
    try {
      const length = out.text().length;
      if (op.kind === "step") {
        for (let i = 0; i < op.n && !s.at.ended; i++) {
          s.apply();
          if (!seen.has(s.at.index)) seen.set(s.at.index, JSON.stringify(saveSnapshot(s.at.state)));
        }
      } else if (op.kind === "back") s.back(op.n);
      else s.backSessions(op.n);
      if (op.kind !== "step") {
        backs++;
        assertEquals(JSON.stringify(saveSnapshot(s.at.state)), seen.get(s.at.index));
      }
      if (out.text().length < length) cuts++;
    } catch (e) {
      if (!(e instanceof ReplError)) throw e;
    }
  }
  return [backs, cuts];
}

Deno.test("REPL stepping: piece by piece, back and forth, the output and state of a non-interactive re-simulation", () => {
  let backs = 0;
  let cuts = 0;
  fc.assert(
    fc.property(arbLivePlan, arbOps, fc.constantFrom(0, 2, 1000, 1000), (p, ops, history) => {
      const text = recordLive(p);
      const ref = reference(text);
      assertEquals(ref.mismatches, []);
      const s = stepper(text, history);
      const out = memoryOutput();
      s.openOutput(out);
      s.verify = true;
      const [b, c] = play(s, ops, out);
      backs += b;
      cuts += c;
      runToEnd(s);
      assertEquals(out.text(), ref.output);
      assertEquals(saveSnapshot(s.at.state), saveSnapshot(ref.state));
      assertEquals(s.at.mismatches, 0);
      assertEquals(
        { events: s.at.events, sessions: s.at.sessions, decisions: s.at.decisions },
        ref.counts,
      );
      assertEquals(s.output?.events, ref.counts.events);
    }),
    { seed: 1414, numRuns: RUNS },
  );
  assert(backs > RUNS / 2, `only ${backs} steps back`);
  assert(cuts > RUNS / 4, `only ${cuts} steps back over a written event`);
});

Deno.test("REPL stepping: an output opened in the middle (or reopened by going back) is a log that re-simulates cleanly", () => {
  fc.assert(
    fc.property(arbLivePlan, fc.nat({ max: 60 }), fc.nat({ max: 10 }), (p, at, back) => {
      const text = recordLive(p);
      const ref = reference(text);
      const s = stepper(text, 1000);
      for (let i = 0; i < at && !s.at.ended; i++) s.apply();
      const out = memoryOutput();
      s.openOutput(out);
      for (let i = 0; i < 5 && !s.at.ended; i++) s.apply();
      try {
        s.back(back + 1); // may go back before the output was opened
      } catch (e) {
        if (!(e instanceof ReplError)) throw e;
      }
      runToEnd(s);
      const again = reference(out.text());
      assertEquals(again.mismatches, []);
      assertEquals(saveSnapshot(again.state), saveSnapshot(ref.state));
    }),
    { seed: 1415, numRuns: RUNS },
  );
});

Deno.test("REPL stepping: the history holds the last N sessions; back past it, or with none kept, is an error", () => {
  const p = fc.sample(arbLivePlan, { seed: 3, numRuns: 40 }).map((plan) => ({
    plan,
    text: recordLive(plan),
  })).find(({ text }) => {
    const s = stepper(text, 0);
    runToEnd(s);
    return s.at.state.round > 12;
  });
  assert(p !== undefined, "no plan with enough rounds");
  const s = stepper(p.text, 2);
  assertThrows(() => s.back(1), "this is the start of the re-simulation");
  runToEnd(s);
  const r = s.reachable();
  assert(r.length > 0, "some history");
  // Every STATE_EVERY-th state is kept; the others are computed again when needed.
  assert(s.positions.some((q) => q.state === undefined), "states not kept");
  assert(s.positions.every((q) => q.state !== undefined || q.index % STATE_EVERY !== 0), "kept");
  // The oldest reachable position is the latest one at least 2 rounds back.
  assert(r[0].round <= s.at.state.round - 2, "two sessions back");
  assert(r[1] === undefined || r[1].round > s.at.state.round - 2, "not more");
  assertThrows(() => s.back(r.length + 1), "the history reaches back");
  assertThrows(() => s.backSessions(3), "cannot go back 3 sessions");
  const before = s.backSessions(2);
  assert(before.round <= s.at.state.round, "went back");
  const none = stepper(p.text, 0);
  none.apply();
  assertThrows(() => none.back(1), "no history is kept (--history 0)");
  assertEquals(none.positions.length, 1);
});
