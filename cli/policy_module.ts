// `--policy_module FILE`: a user's own pickers and admission policies, run
// by the command through the same registry as evtsim's. The module exports
// `pickers` and/or `admissions` (arrays), or a default export that is one
// picker, one admission policy or such an object. Each value is checked for
// the contract's functions, so a mistake is one line naming the module.

import type { Admission } from "../core/admission.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Picker } from "../core/picker.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { withPolicies } from "../schedulers/registry.ts";

const PICKER_HOOKS = [
  "init",
  "onQueueUpdate",
  "onJobPush",
  "onJobStateChange",
  "onJobUpdate",
  "beginSession",
  "size",
  "pending",
] as const;

/** What a policy module provides. */
export interface PolicyModule {
  /** Pickers to register by name. */
  readonly pickers: readonly Picker[];
  /** Admission policies to register by name. */
  readonly admissions: readonly Admission[];
}

function isPicker(x: unknown): x is Picker {
  return typeof x === "object" && x !== null && typeof (x as Picker).name === "string" &&
    PICKER_HOOKS.every((h) => typeof (x as Record<string, unknown>)[h] === "function");
}

function isAdmission(x: unknown): x is Admission {
  return typeof x === "object" && x !== null && typeof (x as Admission).name === "string" &&
    typeof (x as Admission).runSession === "function";
}

/**
 * Sorts a module's exports into pickers and admission policies; throws a
 * usage error naming `file` for anything else.
 *
 * @example
 * ```ts
 * import { policiesOf } from "./policy_module.ts";
 * const mod = { admissions: [{ name: "greedy", runSession() {} }] };
 * console.assert(policiesOf(mod, "m.ts").admissions[0].name === "greedy");
 * ```
 */
export function policiesOf(mod: Record<string, unknown>, file: string): PolicyModule {
  const pickers: Picker[] = [];
  const admissions: Admission[] = [];
  const take = (x: unknown, where: string) => {
    if (isPicker(x)) pickers.push(x);
    else if (isAdmission(x)) admissions.push(x);
    else {
      throw new EvtsimError(
        "usage",
        `${where} is neither a picker (name and ${
          PICKER_HOOKS.join(", ")
        }) nor an admission policy (name and runSession)`,
        { file },
      );
    }
  };
  const list = (x: unknown, name: string) => {
    if (x === undefined) return;
    if (!Array.isArray(x)) {
      throw new EvtsimError("usage", `export ${name} must be an array`, { file });
    }
    x.forEach((v, i) => take(v, `${name}[${i}]`));
  };
  list(mod.pickers, "pickers");
  list(mod.admissions, "admissions");
  const d = mod.default;
  if (d !== undefined) {
    if (isPicker(d) || isAdmission(d)) take(d, "the default export");
    else if (typeof d === "object" && d !== null) {
      list((d as Record<string, unknown>).pickers, "default.pickers");
      list((d as Record<string, unknown>).admissions, "default.admissions");
    } else take(d, "the default export");
  }
  if (pickers.length + admissions.length === 0) {
    throw new EvtsimError(
      "usage",
      "exports no picker and no admission policy (export `pickers` or `admissions`)",
      { file },
    );
  }
  return { pickers, admissions };
}

/** Imports a policy module and returns the registry with its policies added. */
export async function loadPolicyModule(path: string): Promise<PolicyRegistry> {
  const url = new URL(path, `file://${Deno.cwd()}/`).href;
  let mod: Record<string, unknown>;
  try {
    mod = await import(url);
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    throw new EvtsimError("usage", `cannot load the policy module: ${why}`, { file: path });
  }
  const found = policiesOf(mod, path);
  try {
    return withPolicies(found);
  } catch (e) {
    if (e instanceof EvtsimError) throw new EvtsimError("usage", e.message, { file: path });
    throw e;
  }
}
