// The settings of the `fairshare` picker: what a configuration's
// `pickerSettings.fairshare` (or a queues file's `fairshare:` block) may say,
// checked strictly, with the defaults filled in.

import { EvtsimError } from "../core/errors.ts";

/** Seconds in a day. */
const DAY = 86_400;

/**
 * The `fairshare` picker's settings as a configuration gives them
 * (`pickerSettings: { fairshare: ... }`); every field is optional.
 *
 * @example
 * ```ts
 * import { type FairshareSettings, Simulation } from "@evtsim/evtsim";
 * const begins = (fairshare: FairshareSettings) => {
 *   const sim = new Simulation({ totalNodes: 4, picker: "fairshare", pickerSettings: { fairshare } });
 *   sim.appendJobs([
 *     { submitTime: 0, numNodes: 4, timeLimit: 100, user: "alice", account: "physics" },
 *     { submitTime: 1, numNodes: 4, timeLimit: 100, user: "alice", account: "chem" },
 *     { submitTime: 2, numNodes: 4, timeLimit: 100, user: "bob", account: "physics" },
 *   ]);
 *   return sim.finish().jobs.map((r) => r.beginTime).join();
 * };
 * // Job 0 charged alice and physics: by user bob goes next, by account chem does.
 * console.assert(begins({ by: "user" }) === "0,200,100" && begins({ by: "account", halfLife: 86400 }) === "0,100,200");
 * ```
 */
export interface FairshareSettings {
  /** Whose usage counts: the job's `user` (default) or its `account`. */
  readonly by?: "user" | "account";
  /** Half-life of past usage, in seconds (default 7 days). */
  readonly halfLife?: number;
  /** Age at which the age factor reaches 1, in seconds (default 7 days). */
  readonly maxAge?: number;
  /** Weights of the factors (defaults: fairshare 1000, age 100, size 0). */
  readonly weights?: {
    readonly fairshare?: number;
    readonly age?: number;
    readonly size?: number;
  };
  /** Raw shares per user or account (default 1 each); must be > 0. */
  readonly shares?: Readonly<Record<string, number>>;
}

/**
 * {@link FairshareSettings} with every default filled in.
 *
 * @example
 * ```ts
 * import { type ResolvedFairshare, resolveFairshare } from "@evtsim/evtsim";
 * const r: ResolvedFairshare = resolveFairshare(undefined);
 * if (r.halfLife !== 7 * 86400 || r.weightFairshare !== 1000 || r.by !== "user") throw new Error("defaults");
 * ```
 */
export interface ResolvedFairshare {
  /** Whose usage counts. */
  readonly by: "user" | "account";
  /** Half-life of past usage, seconds (> 0). */
  readonly halfLife: number;
  /** Age at which the age factor reaches 1, seconds (> 0). */
  readonly maxAge: number;
  /** Weight of the fair-share factor. */
  readonly weightFairshare: number;
  /** Weight of the age factor. */
  readonly weightAge: number;
  /** Weight of the job-size factor. */
  readonly weightSize: number;
  /** Raw shares of the entities configured (others have 1). */
  readonly shares: ReadonlyMap<string, number>;
}

function bad(field: string, expected: string, got: unknown): EvtsimError {
  const shown = typeof got === "string" ? `'${got}'` : JSON.stringify(got) ?? String(got);
  return new EvtsimError(
    "usage",
    `fairshare settings: ${field}: expected ${expected}, got ${shown}`,
  );
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === "object" && !Array.isArray(x);

function only(o: Record<string, unknown>, where: string, keys: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!keys.includes(k)) {
      throw new EvtsimError(
        "usage",
        `fairshare settings: ${where}${k}: unknown field (expected one of ${keys.join(", ")})`,
      );
    }
  }
}

function positive(v: unknown, field: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw bad(field, "a positive number of seconds", v);
  }
  return v;
}

function weight(v: unknown, field: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
    throw bad(field, "a non-negative number", v);
  }
  return v;
}

/**
 * Checks `fairshare` picker settings (JSON data) and fills in the defaults:
 * `by: user`, half-life and max age 7 days, weights fairshare 1000, age 100,
 * size 0, every share 1. Throws a usage `EvtsimError` naming the field and
 * what it expects.
 *
 * @example
 * ```ts
 * import { resolveFairshare } from "@evtsim/evtsim";
 * const r = resolveFairshare({ halfLife: 3600, shares: { alice: 2 } });
 * if (r.halfLife !== 3600 || r.shares.get("alice") !== 2) throw new Error("resolved");
 * try {
 *   resolveFairshare({ half_life: 3600 });
 *   throw new Error("an unknown field must be refused");
 * } catch (e) {
 *   if (!(e as Error).message.includes("half_life: unknown field")) throw e;
 * }
 * ```
 */
export function resolveFairshare(settings: unknown): ResolvedFairshare {
  const s = settings ?? {};
  if (!isObject(s)) throw bad("settings", "an object", s);
  only(s, "", ["by", "halfLife", "maxAge", "weights", "shares"]);
  const by = s.by ?? "user";
  if (by !== "user" && by !== "account") throw bad("by", "user or account", by);
  const w = s.weights ?? {};
  if (!isObject(w)) throw bad("weights", "an object", w);
  only(w, "weights.", ["fairshare", "age", "size"]);
  const sh = s.shares ?? {};
  if (!isObject(sh)) throw bad("shares", "an object of entity: share", sh);
  const shares = new Map<string, number>();
  for (const [name, v] of Object.entries(sh)) {
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
      throw bad(`shares.${name}`, "a positive number", v);
    }
    shares.set(name, v);
  }
  return Object.freeze({
    by,
    halfLife: positive(s.halfLife, "halfLife", 7 * DAY),
    maxAge: positive(s.maxAge, "maxAge", 7 * DAY),
    weightFairshare: weight(w.fairshare, "weights.fairshare", 1000),
    weightAge: weight(w.age, "weights.age", 100),
    weightSize: weight(w.size, "weights.size", 0),
    shares,
  });
}
