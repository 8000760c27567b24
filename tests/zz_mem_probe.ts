import { Resimulation } from "../api/resimulation.ts";
import { Stepper } from "../cli/_repl_stepper.ts";
import { LogReader } from "../io/replay_reader.ts";
const s = new Stepper(new Resimulation({ log: LogReader.open("/tmp/h12/h.replay", "log") }), 1000);
const gc = (globalThis as unknown as { gc: () => void }).gc;
for (let i = 0; i < 50000 && !s.at.ended; i++) s.apply();
const heap = () => {
  gc();
  gc();
  return (Deno.memoryUsage().heapUsed / 1e6).toFixed(1);
};
console.log("kept", s.positions.length, "heap", heap());
const ps = s.positions as unknown as Record<string, unknown>[];
for (let i = 0; i < ps.length - 1; i++) ps[i] = { ...ps[i], made: undefined, pieceDecisions: [] };
console.log("without made/decisions", heap());
for (let i = 0; i < ps.length - 1; i++) ps[i] = { ...ps[i], eventStart: undefined };
console.log("without eventStart", heap());
for (let i = 0; i < ps.length - 1; i++) ps[i] = { ...ps[i], state: undefined };
console.log("without states", heap());
ps.splice(0, ps.length - 1);
console.log("without positions", heap());
const st = s.at.state;
console.log(
  "store",
  st.store.records.size,
  "resbuf",
  st.resourceBuffer.size,
  "running",
  st.running.size,
  "waiting",
  st.picker.size(st.pickerState),
  "events",
  st.events.size,
  "arrivals",
  st.arrivals.size,
  "pend",
  st.pendCodes.size,
  "cap",
  st.config.resourceHistoryCapacity,
  st.config.jobFlushInterval,
  st.store.capacity,
);
