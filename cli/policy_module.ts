// `--policy_module FILE`: a user's own pickers and admission policies, run
// by every command through the same registry as evtsim's. This is the one
// place where options become a registry (`policyRegistry`) and where a
// recording's modules are found again (`logPolicies`). The module exports
// `pickers` and/or `admissions` (arrays), or a default export that is one
// picker, one admission policy or such an object. Each value is checked for
// the contract's functions, so a mistake is one line naming the module.

import type { Admission } from "../core/admission.ts";
import { EvtsimError } from "../core/errors.ts";
import type { Picker } from "../core/picker.ts";
import type { PolicyRegistry } from "../core/policies.ts";
import { describeFsError } from "../io/fs_errors.ts";
import type { HeaderMessage, PolicyModuleRef } from "../io/replay_schema.ts";
import { defaultRegistry, withPolicies } from "../schedulers/registry.ts";
import { absolutePath } from "./_sweep_model.ts";

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

/** A registry and the policy modules whose policies it adds to evtsim's own. */
export interface LoadedPolicies {
  /** Where every command looks policy names up. */
  readonly registry: PolicyRegistry;
  /** The modules loaded (absolute path and SHA-256 of the source), for a recording's header. */
  readonly modules: readonly PolicyModuleRef[];
}

const BUILT_IN_ONLY: LoadedPolicies = { registry: defaultRegistry(), modules: [] };

/** `path` made absolute against the current folder. */
function absolute(path: string): string {
  return absolutePath(path, Deno.cwd());
}

async function sha256Of(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The registry every command runs with: evtsim's own policies plus those of
 * `--policy_module FILE` when given (`file` as the user wrote it, relative to
 * the current folder). Every command turns its options into a registry here,
 * so a name means the same policy in `simulate`, `replay`, `compare` and
 * `sweep`; errors are one line naming the module.
 */
export async function policyRegistry(file: string | undefined): Promise<LoadedPolicies> {
  if (file === undefined) return BUILT_IN_ONLY;
  const path = absolute(file);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new EvtsimError("usage", `cannot load the policy module: ${describeFsError(e)}`, {
      file,
    });
  }
  const module: PolicyModuleRef = { path, sha256: await sha256Of(bytes) };
  let mod: Record<string, unknown>;
  try {
    mod = await import(toFileUrl(path));
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    throw new EvtsimError("usage", `cannot load the policy module: ${why}`, { file });
  }
  const found = policiesOf(mod, file);
  try {
    return { registry: withPolicies(found), modules: [module] };
  } catch (e) {
    if (e instanceof EvtsimError) throw new EvtsimError("usage", e.message, { file });
    throw e;
  }
}

/** The registry of {@link policyRegistry} for the module at `path`, without the module's description. */
export async function loadPolicyModule(path: string): Promise<PolicyRegistry> {
  return (await policyRegistry(path)).registry;
}

function toFileUrl(path: string): string {
  return "file://" + path.split("/").map(encodeURIComponent).join("/");
}

/** What `replay` may change about the recorded configuration (so its names need no check). */
export interface Overrides {
  /** `--picker` replaces the recorded picker. */
  readonly picker?: boolean;
  /** `--backfill_policy` replaces the recorded admission policy. */
  readonly admission?: boolean;
  /** `--queues` replaces the recorded queues (and their pickers). */
  readonly queues?: boolean;
}

/**
 * The registry to replay a log with. With `--policy_module FILE` (`given`),
 * that module, whatever the log recorded. Otherwise the modules the log's
 * header names, loaded from their paths if their source is unchanged (the
 * SHA-256 matches); a changed or missing module is one line saying so and
 * how to override. Then every policy the log's configuration names (and the
 * replay does not replace) must be registered: an unknown one says where a
 * policy of one's own comes from.
 */
export async function logPolicies(
  log: string,
  header: HeaderMessage,
  given: string | undefined,
  overrides: Overrides = {},
): Promise<LoadedPolicies> {
  if (given !== undefined) return await policyRegistry(given);
  const recorded = header.policyModules ?? [];
  if (recorded.length > 1) {
    throw new EvtsimError(
      "usage",
      "names more than one policy module; give --policy_module FILE with all of their policies",
      { file: log, line: 1 },
    );
  }
  let loaded = BUILT_IN_ONLY;
  for (const m of recorded) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(m.path);
    } catch (e) {
      throw new EvtsimError(
        "usage",
        `the policy module it was recorded with, ${m.path}, cannot be read (${
          describeFsError(e)
        }); give --policy_module FILE to replay with another module`,
        { file: log, line: 1 },
      );
    }
    const now = await sha256Of(bytes);
    if (now !== m.sha256) {
      throw new EvtsimError(
        "usage",
        `the policy module ${m.path} has changed since the recording (sha256 ${
          m.sha256.slice(0, 12)
        }… recorded, ${
          now.slice(0, 12)
        }… now); give --policy_module ${m.path} to replay with it as it is now`,
        { file: log, line: 1 },
      );
    }
    loaded = await policyRegistry(m.path);
  }
  const c = header.config;
  const names: (readonly [string, string, "pickers" | "admissions"])[] = [
    ...(overrides.picker === true ? [] : [["picker", c.picker, "pickers"] as const]),
    ...(overrides.admission === true
      ? []
      : [["backfill policy", c.backfillPolicy, "admissions"] as const]),
    ...(overrides.queues === true
      ? []
      : c.queues.flatMap((q) =>
        q.picker === undefined ? [] : [["picker", q.picker, "pickers"] as const]
      )),
  ];
  for (const [what, name, kind] of names) {
    if (loaded.registry[kind].has(name)) continue;
    // An external session's log (evtsim serve): its recorded decisions are the policy.
    if (kind === "admissions" && name === "external") continue;
    throw new EvtsimError(
      "usage",
      `unknown ${what} '${name}': ${
        recorded.length === 0
          ? "the log names no policy module"
          : `not in the policy module ${recorded[0].path} the log names`
      }; give --policy_module FILE that exports it`,
      { file: log, line: 1 },
    );
  }
  return loaded;
}
