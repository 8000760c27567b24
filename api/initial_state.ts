// The public way to make a first state: the core's `createState` with
// evtsim's own policies registered (or a registry of the caller's).

import type { PolicyRegistry } from "../core/policies.ts";
import { createState, type SimState } from "../core/state.ts";
import type { SimulationConfig } from "../core/types.ts";
import { defaultRegistry } from "../schedulers/registry.ts";

/**
 * Options of {@link initialState}.
 *
 * @example
 * ```ts
 * import { initialState, type InitialStateOptions, orderedPicker, withPolicies } from "@evtsim/evtsim";
 * const smallestFirst = orderedPicker({ name: "smallest_first", compare: (a, b) => a.numNodes - b.numNodes || a.id - b.id });
 * const options: InitialStateOptions = { registry: withPolicies({ pickers: [smallestFirst] }) };
 * // The configuration names the picker; the registry resolves the name.
 * const s = initialState({ totalNodes: 4, picker: "smallest_first" }, options);
 * console.assert(s.picker === smallestFirst && s.admission.name === "easy");
 * ```
 */
export interface InitialStateOptions {
  /** A replay state: recorded jobs are replayed, the policies never asked. */
  readonly replay?: boolean;
  /** Where picker and admission names are looked up (default: evtsim's own). */
  readonly registry?: PolicyRegistry;
}

/**
 * The state before any job exists: clock at the start time, all nodes free,
 * and the resource baseline row buffered.
 *
 * @example
 * ```ts
 * import { initialState } from "@evtsim/evtsim";
 * const s = initialState({ totalNodes: 64 });
 * console.assert(s.time === 0 && s.allocatedNodes === 0);
 * ```
 */
export function initialState(
  config: SimulationConfig,
  options: InitialStateOptions = {},
): SimState {
  return createState(config, {
    registry: options.registry ?? defaultRegistry(),
    replay: options.replay,
  });
}
