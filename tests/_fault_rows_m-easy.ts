// Fault catalogue rows of EASY on a resource model (issue 28 item 3): what a
// policy can get wrong with `AdmissionSession.resources`.

import {
  type Admission,
  advanceTo,
  appendJobs,
  initialState,
  type SessionResources,
  step,
  topologyCluster,
} from "../mod.ts";
import { library } from "./_input_faults.ts";
import type { FaultRow } from "./repo/fault_catalogue_test.ts";

const job = (submitTime: number) => ({
  submitTime,
  numNodes: 0,
  timeLimit: 10,
  demand: { replicas: 1, perReplica: { cpu: 2 } },
});

/** Runs two jobs (at 0 and 1) under `admission` on a one-node cluster, to t=1. */
function run(admission: Admission): void {
  const resourceModel = topologyCluster([{ name: "n1", capacity: { cpu: 8 } }]);
  let s = initialState({ totalNodes: 1, resourceModel, admission });
  s = step(s, appendJobs([job(0), job(1)])).state;
  step(s, advanceTo(1));
}

/** Starts every candidate the model places. */
function startAll(s: Parameters<Admission["runSession"]>[0]): void {
  for (let j = s.next(); j !== undefined; j = s.next()) {
    if (s.place(j).placement !== undefined) s.dispatch(j, false);
    else s.pend(j, { code: "insufficient_capacity", message: "no room" });
  }
}

let kept: SessionResources | undefined;

export const EASY_ROWS: FaultRow[] = [
  {
    surface: "library",
    input: "an admission policy keeps the resource view and reads it in a later session",
    run: () =>
      Promise.resolve(library(() =>
        run({
          name: "keeper",
          init() {
            kept = undefined;
            return undefined;
          },
          runSession(s) {
            if (kept !== undefined) void kept.state;
            kept = s.resources;
            startAll(s);
          },
        })
      )),
    expected:
      /^policy 'keeper' called resources.state on its session of t=0 after runSession returned: every decision must be made before runSession returns/,
  },
];
