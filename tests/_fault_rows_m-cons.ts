// Fault catalogue rows of the conservative family on a resource model (issue 28 item 3, m-cons).

import { type Admission, type ResourceModel, Simulation, topologyCluster } from "../mod.ts";
import type { FaultOutcome, FaultRow } from "./repo/fault_catalogue_test.ts";

/** What a library call threw. */
function thrown(f: () => unknown): Promise<FaultOutcome> {
  try {
    f();
  } catch (e) {
    return Promise.resolve({ code: 1, error: (e as Error).message });
  }
  return Promise.resolve({ code: 0, error: "" });
}

const job = {
  submitTime: 0,
  numNodes: 0,
  timeLimit: 5,
  demand: { replicas: 1, perReplica: { cpu: 1 } },
};

export const M_CONS_ROWS: FaultRow[] = [
  {
    surface: "library",
    input: "conservative_profile on a resource model that has no fits",
    run: () => {
      // The topology cluster's members, less `fits`.
      const base = topologyCluster([{ name: "a", capacity: { cpu: 1 } }]) as ResourceModel;
      const model: ResourceModel = {
        name: "mine",
        initial: base.initial,
        place: (s, j) => base.place(s, j),
        beginEdit: (s) => base.beginEdit(s),
        allocate: (s, j, p) => base.allocate(s, j, p),
        release: (s, j) => base.release(s, j),
        endEdit: (s) => base.endEdit(s),
      };
      const sim = new Simulation({
        totalNodes: 1,
        resourceModel: model,
        backfillPolicy: "conservative_profile",
      });
      sim.appendJobs([job]);
      return thrown(() => sim.finish());
    },
    expected:
      /^backfill policy conservative_profile on resource model mine: the model has no fits\(state, job, placement\), which reservations need$/,
  },
  {
    surface: "library",
    input: "an admission policy dispatches on a placement the model does not have free",
    run: () => {
      const elsewhere: Admission = {
        name: "elsewhere",
        runSession(s) {
          for (let j = s.next(); j !== undefined; j = s.next()) {
            s.dispatch(j, false, {
              domain: "global",
              allocation: [{ nodeName: "b", replicas: 1 }],
            });
          }
        },
      };
      const sim = new Simulation({
        totalNodes: 2,
        admission: elsewhere,
        resourceModel: topologyCluster([{ name: "a", capacity: { cpu: 1 } }, {
          name: "b",
          capacity: { cpu: 0 },
        }]),
      });
      sim.appendJobs([job]);
      return thrown(() => sim.finish());
    },
    expected:
      /admission policy elsewhere started job 0 on a placement resource model topology does not have free now/,
  },
];
