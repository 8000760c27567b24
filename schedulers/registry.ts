// The registry evtsim hands to the core by default: its pickers and
// admission policies by name. A caller can extend it with policies of their
// own, by name, and then name them in a configuration (or on the command line).

import type { Admission } from "../core/admission.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Picker } from "../core/picker.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { conservativeBackfill, easyBackfill, noBackfill } from "./admission.ts";
import { builtinFcfs } from "./builtin_fcfs.ts";
import {
  conservativeProfileBackfill,
  conservativeProfileNoCompression,
} from "./conservative_profile.ts";
import { easyExtraBackfill } from "./easy_extra.ts";
import { fairsharePicker } from "./fairshare.ts";
import { limitOrderPicker } from "./limit_order_picker.ts";
import { topologyCluster } from "./topology_cluster.ts";
import type { ModelNode, ResourceModel } from "../core/resource_model.ts";

// A snapshot's or recording's resource model: a topology cluster of its nodes
// (a machine run's model is one, see cli/_machine_run.ts).
const clusterOf = (nodes: readonly ModelNode[]): ResourceModel =>
  topologyCluster(
    nodes.map((n) =>
      n.labels === undefined
        ? { name: n.name, capacity: n.capacity }
        : { name: n.name, topology: n.labels, capacity: n.capacity }
    ),
  ) as ResourceModel;

const BUILT_IN: PolicyRegistry = Object.freeze({
  pickers: new Map<string, Picker>([
    ["builtin_fcfs", builtinFcfs as Picker],
    ["sjf", limitOrderPicker(false) as Picker],
    ["ljf", limitOrderPicker(true) as Picker],
    ["fairshare", fairsharePicker as Picker],
  ]),
  admissions: new Map<string, Admission>([
    ["none", noBackfill],
    ["easy", easyBackfill],
    ["conservative", conservativeBackfill],
    ["easy_extra", easyExtraBackfill],
    ["conservative_profile", conservativeProfileBackfill],
    ["conservative_profile_no_compression", conservativeProfileNoCompression],
  ]),
  resourceModel: clusterOf,
});

/**
 * evtsim's own policies: pickers `builtin_fcfs`, `sjf`, `ljf`, `fairshare`; admission
 * policies `none`, `easy`, `conservative` (DR_EVT's), and the textbook
 * `easy_extra`, `conservative_profile` and `conservative_profile_no_compression`.
 *
 * @example
 * ```ts
 * import { defaultRegistry } from "@evtsim/evtsim";
 * const names = [...defaultRegistry().pickers.keys()].join();
 * if (names !== "builtin_fcfs,sjf,ljf,fairshare") throw new Error(names);
 * ```
 */
export function defaultRegistry(): PolicyRegistry {
  return BUILT_IN;
}

/**
 * A registry with more policies: `base` (evtsim's own by default) plus the
 * given pickers and admission policies under their names. A name that is
 * already registered is an error.
 *
 * @example
 * ```ts
 * import { createState, orderedPicker, withPolicies } from "@evtsim/evtsim";
 * const smallest = orderedPicker({ name: "smallest_first", compare: (a, b) => a.numNodes - b.numNodes || a.id - b.id });
 * const registry = withPolicies({ pickers: [smallest] });
 * const s = createState({ totalNodes: 8, picker: "smallest_first" }, { registry });
 * if (s.picker.name !== "smallest_first") throw new Error("registered by name");
 * ```
 */
export function withPolicies(
  extra: { readonly pickers?: readonly Picker[]; readonly admissions?: readonly Admission[] },
  base: PolicyRegistry = BUILT_IN,
): PolicyRegistry {
  const pickers = new Map(base.pickers);
  const admissions = new Map(base.admissions);
  for (const p of extra.pickers ?? []) {
    if (pickers.has(p.name)) {
      throw new EvtsimError("usage", `picker '${p.name}' is already registered`);
    }
    pickers.set(p.name, p);
  }
  for (const a of extra.admissions ?? []) {
    if (admissions.has(a.name)) {
      throw new EvtsimError("usage", `backfill policy '${a.name}' is already registered`);
    }
    admissions.set(a.name, a);
  }
  return Object.freeze(
    base.resourceModel === undefined
      ? { pickers, admissions }
      : { pickers, admissions, resourceModel: base.resourceModel },
  );
}
