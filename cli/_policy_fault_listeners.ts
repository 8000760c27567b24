// A policy that uses its session after it ended (from a timer or a promise)
// throws an error the run has recorded: the run's next step fails with it as
// one line, so it must not also end the process (or its worker) with a stack.

import { EvtsimError } from "../core/errors.ts";

/** Keeps the recorded policy faults of late calls from ending the process with a stack. */
export function ignoreRecordedPolicyFaults(): void {
  const recordedPolicyFault = (e: unknown) => e instanceof EvtsimError && e.kind === "policy";
  globalThis.addEventListener("error", (ev) => {
    if (recordedPolicyFault(ev.error)) ev.preventDefault();
  });
  globalThis.addEventListener("unhandledrejection", (ev) => {
    if (recordedPolicyFault(ev.reason)) ev.preventDefault();
  });
}
