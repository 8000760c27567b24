// The registry of policies handed to the core from outside: the core knows
// the picker and admission contracts, never their implementations. A name
// nobody registered is a configuration error listing the registered names,
// never a silent fallback (docs/seed-003-mapping.md, "Picker hooks").

import type { Admission } from "./admission.ts";
import { EvtsimError } from "./errors.ts";
import type { Picker } from "./picker.ts";
import type { ModelNode, ResourceModel } from "./resource_model.ts";

/**
 * Pickers and admission policies by name.
 *
 * @example
 * ```ts
 * import { defaultRegistry, type PolicyRegistry } from "@evtsim/evtsim";
 * const r: PolicyRegistry = defaultRegistry();
 * if (!r.pickers.has("builtin_fcfs") || !r.admissions.has("easy")) throw new Error("built-ins");
 * ```
 */
export interface PolicyRegistry {
  /** Pickers by name. */
  readonly pickers: ReadonlyMap<string, Picker>;
  /** Admission policies by name. */
  readonly admissions: ReadonlyMap<string, Admission>;
  /**
   * Builds the resource model of a snapshot or recording from the nodes it
   * stored (`ResourceModel.nodes`); absent: such a snapshot cannot be loaded.
   */
  readonly resourceModel?: (nodes: readonly ModelNode[]) => ResourceModel;
}

/** The picker registered as `name`; throws a usage error listing the registered names. */
export function lookupPicker(registry: PolicyRegistry, name: string): Picker {
  const p = registry.pickers.get(name);
  if (p === undefined) {
    throw new EvtsimError(
      "usage",
      `unknown picker '${name}' (registered: ${[...registry.pickers.keys()].sort().join(", ")})`,
    );
  }
  return p;
}

/** The admission policy registered as `name`; throws a usage error listing the registered names. */
export function lookupAdmission(registry: PolicyRegistry, name: string): Admission {
  const a = registry.admissions.get(name);
  if (a === undefined) {
    throw new EvtsimError(
      "usage",
      `unknown backfill policy '${name}' (registered: ${
        [...registry.admissions.keys()].sort().join(", ")
      })`,
    );
  }
  return a;
}
