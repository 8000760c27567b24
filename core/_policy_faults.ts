// A policy (picker or admission policy) is code the engine calls but does
// not control: whatever it throws, returns or does later must end the run
// with one line naming it, never corrupt the state or vanish. These helpers
// turn such faults into `EvtsimError`s of kind "policy".

import { describeValue } from "./_input_check.ts";
import { EvtsimError } from "./errors.ts";

/**
 * The error for a policy's hook that threw `thrown` at clock `time`:
 * `policy 'NAME' failed at t=T: message`. An `EvtsimError` passes unchanged
 * (the engine's own refusals already name the component at fault); the
 * thrown value is kept as `cause` (the CLI's --debug prints its stack).
 */
export function policyFailure(name: string, time: number, thrown: unknown): EvtsimError {
  if (thrown instanceof EvtsimError) return thrown;
  const e = new EvtsimError(
    "policy",
    `policy '${name}' failed at t=${time}: ${describeThrown(thrown)}`,
  );
  e.cause = thrown;
  return e;
}

// One line for whatever was thrown: a policy may throw anything, even an
// object whose `message` getter or `toString` throws.
function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const m = firstLine(String(thrown.message));
      return m === "" ? thrown.name : m;
    }
    if (typeof thrown === "string") {
      return thrown === "" ? "an empty string was thrown" : firstLine(thrown);
    }
    return `${describeValue(thrown)} was thrown`;
  } catch {
    return "a value that cannot be shown was thrown";
  }
}

function firstLine(s: string): string {
  const i = s.indexOf("\n");
  const line = i < 0 ? s : s.slice(0, i);
  return line.length > 300 ? line.slice(0, 297) + "..." : line;
}

/** Whether `x` is a promise (or any thenable): a hook that returned one decided nothing in time. */
export function isThenable(x: unknown): boolean {
  if ((typeof x !== "object" || x === null) && typeof x !== "function") return false;
  try {
    return typeof (x as { then?: unknown }).then === "function";
  } catch {
    return false;
  }
}

/**
 * The error for a hook that returned a promise. The promise is marked
 * handled: what it does later fails on its own (an ended session), and must
 * not surface as an unhandled rejection with a stack.
 */
export function returnedPromise(
  name: string,
  hook: string,
  time: number,
  promise: unknown,
): EvtsimError {
  try {
    (promise as PromiseLike<unknown>).then(undefined, () => {});
  } catch { /* a thenable whose `then` throws: nothing to mark */ }
  return new EvtsimError(
    "policy",
    `policy '${name}' returned a promise from ${hook} at t=${time}: policies are synchronous, every decision must be made before the hook returns`,
  );
}

// Calls on an ended session, by the run they belong to (its configuration
// object, shared by every state of the run): `step` refuses to go on with a
// run that has one, so a decision made from a timer or a kept session object
// ends the run with an error instead of vanishing.
const lateCalls = new WeakMap<object, EvtsimError>();

/**
 * Records and returns the error for a call of `method` on the session that
 * policy `name` was handed at clock `time`, after that session ended.
 */
export function lateCall(run: object, name: string, method: string, time: number): EvtsimError {
  const e = new EvtsimError(
    "policy",
    `policy '${name}' called ${method} on its session of t=${time} after runSession returned: every decision must be made before runSession returns (no promises, timers or kept sessions)`,
  );
  if (!lateCalls.has(run)) lateCalls.set(run, e);
  return e;
}

/** The first late call recorded for the run of configuration `run`, if any. */
export function lateCallOf(run: object): EvtsimError | undefined {
  return lateCalls.get(run);
}

/** Carries a recorded late call over to the same run's new configuration object. */
export function carryLateCall(from: object, to: object): void {
  const e = lateCalls.get(from);
  if (e !== undefined && !lateCalls.has(to)) lateCalls.set(to, e);
}
