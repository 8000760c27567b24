// What the configured admission policy promises, for the checks that need a
// promise (work conservation, the head's reservation, FCFS order). Each of
// evtsim's registered policies states its own (`Admission.promise`), so a
// policy added to the registry is checked by what it says, with no list here
// to keep. A policy value of the caller's own that states nothing is held to
// the head rule (`fuzzScheduler`'s documented default).

import type { AdmissionPromise } from "../core/admission.ts";
import { resolveConfig } from "../core/config.ts";
import type { SimulationConfig } from "../core/types.ts";
import { defaultRegistry } from "../schedulers/registry.ts";

/** `WorkConservationGuarantee` (work_conservation.ts imports this file). */
type Guarantee = "none" | "easy" | "conservative";

const GUARANTEE: Readonly<Record<AdmissionPromise, Guarantee>> = {
  head: "none",
  easy: "easy",
  conservative: "conservative",
};

/**
 * The work-conservation guarantee `config`'s admission policy promises, and
 * whether it is one of evtsim's registered policies; `undefined` guarantee:
 * none is promised.
 */
export function promisedGuarantee(
  config: SimulationConfig,
): { guarantee: Guarantee | undefined; registered: boolean } {
  if (config.admission !== undefined) {
    const p = config.admission.promise;
    return { guarantee: p === undefined ? "none" : GUARANTEE[p], registered: false };
  }
  const name = resolveConfig(config).backfillPolicy;
  const a = defaultRegistry().admissions.get(name);
  const p = a?.promise;
  return { guarantee: p === undefined ? undefined : GUARANTEE[p], registered: a !== undefined };
}
