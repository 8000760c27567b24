// `evtsim simulate`'s power model (docs/power.md): `--power_cap W`,
// `--power_cap_schedule FILE`, `--idle_watts W` and `--busy_watts W` become
// the configuration's power fields; a pcon trace's avgpcon becomes each
// job's `power`; the run's energy is the integral of the resource CSV's
// `power` column. Without these options nothing here runs, so every output
// stays as it was.

import { EvtsimError } from "../core/errors.ts";
import type { Machine } from "../core/machine.ts";
import type { JobRow, JobSpec, NodeWatts, ResourceRow, SimulationConfig } from "../core/types.ts";
import type { EnergyMetrics } from "../io/stats_json.ts";
import type { ParsedOptions } from "./options.ts";

/** The power options of `simulate`, in the option table's order. */
export const POWER_OPTIONS = ["power_cap", "power_cap_schedule", "idle_watts", "busy_watts"];

/** Whether any power option is given. */
export function powerGiven(o: ParsedOptions): boolean {
  return POWER_OPTIONS.some((name) => o.has(name));
}

/** Whether a machine file's groups give watts (then every run on it models power). */
export function machineWatts(machine: Machine | undefined): boolean {
  return machine?.groups.some((g) => g.idleWatts !== undefined || g.busyWatts !== undefined) ===
    true;
}

/**
 * A machine's node watts, one run per group (the resource model's nodes are
 * the groups' nodes in file order); a group without watts draws none.
 */
export function nodeWattsOf(machine: Machine): NodeWatts[] {
  return machine.groups.map((g) => ({
    nodes: g.count,
    idleWatts: g.idleWatts ?? 0,
    busyWatts: g.busyWatts ?? 0,
  }));
}

/** The configuration's power fields from the options and the machine (empty without them). */
export async function powerConfigOf(
  o: ParsedOptions,
  timezone: string,
  c: { readonly machine: Machine | undefined; readonly replay: boolean },
): Promise<
  Pick<
    SimulationConfig,
    "powerCap" | "powerCapSchedule" | "idleWatts" | "busyWatts" | "nodeWatts"
  >
> {
  const nodeWatts = machineWatts(c.machine) ? { nodeWatts: nodeWattsOf(c.machine!) } : {};
  if (!powerGiven(o)) return nodeWatts;
  const given = POWER_OPTIONS.find((name) => o.has(name))!;
  const uniform = ["idle_watts", "busy_watts"].find((name) => o.has(name));
  if (c.machine !== undefined && uniform !== undefined) {
    throw new EvtsimError(
      "usage",
      `--${uniform} cannot be used with --machine: give idle_watts and busy_watts per group in the machine file`,
    );
  }
  if (c.replay) {
    throw new EvtsimError(
      "usage",
      `--${given} needs a simulation trace: a trace with begin_time and end_time replays a recorded schedule, which no cap changes`,
    );
  }
  const file = o.get("power_cap_schedule");
  const number = (
    name: "power_cap" | "idle_watts" | "busy_watts",
  ): number | undefined => {
    const v = o.get(name);
    return typeof v === "number" ? v : undefined;
  };
  const schedule = typeof file === "string"
    ? await (await import("../io/power_cap_schedule.ts")).readPowerCapSchedule(file, timezone)
    : undefined;
  const out: {
    powerCap?: number;
    powerCapSchedule?: SimulationConfig["powerCapSchedule"];
    idleWatts?: number;
    busyWatts?: number;
    nodeWatts?: NodeWatts[];
  } = { ...nodeWatts };
  if (number("power_cap") !== undefined) out.powerCap = number("power_cap");
  if (schedule !== undefined) out.powerCapSchedule = schedule;
  if (number("idle_watts") !== undefined) out.idleWatts = number("idle_watts");
  if (number("busy_watts") !== undefined) out.busyWatts = number("busy_watts");
  return out;
}

/**
 * A pcon trace's jobs with their avgpcon as their `power` (the draw a cap
 * counts: the mean is what the job draws over its run, so the cap bounds
 * the mean draw, not the peaks of maxpcon).
 */
export function withPconPower(jobs: readonly JobSpec[]): JobSpec[] {
  return jobs.map((j) => {
    const pcon = (j as { readonly pcon?: readonly number[] }).pcon;
    return pcon === undefined ? j : { ...j, power: pcon[0] };
  });
}

/**
 * The run's energy from its rows: `total` integrates the resource rows'
 * `power` (each row's draw held until the next row's time); each written
 * job's energy is its own `power` times its run time.
 *
 * @example
 * ```ts
 * import { PowerEnergy } from "./_power_options.ts";
 * const e = new PowerEnergy();
 * e.jobs([{ power: 10 }]);
 * e.resources([{ time: 0, freeNodes: 1, allocatedNodes: 0, power: 5 }, { time: 0, freeNodes: 0, allocatedNodes: 1, power: 25 }]);
 * e.resources([{ time: 4, freeNodes: 1, allocatedNodes: 0, power: 5 }]);
 * e.written([{ jobId: 0, submitTime: 0, beginTime: 0, endTime: 4, numNodes: 1, timeLimit: 9, queue: undefined }]);
 * const m = e.energy();
 * console.assert(m.total === 100 && m.jobs === 1 && m.per_job_max === 40, JSON.stringify(m));
 * ```
 */
export class PowerEnergy {
  #powers = new Float64Array(0);
  #count = 0;
  #total = 0;
  #lastTime = NaN;
  #lastPower = 0;
  #jobs = 0;
  #sum = 0;
  #most = -Infinity;

  /** Notes an input's jobs (ids continuing from the previous input's). */
  jobs(jobs: readonly { readonly power?: number }[]): void {
    if (this.#count + jobs.length > this.#powers.length) {
      const v = new Float64Array(Math.max(this.#count + jobs.length, 2 * this.#powers.length));
      v.set(this.#powers);
      this.#powers = v;
    }
    for (const j of jobs) this.#powers[this.#count++] = j.power ?? 0;
  }

  /** Adds resource rows, in order, to the integral. */
  resources(rows: readonly ResourceRow[]): void {
    for (const r of rows) {
      if (!Number.isNaN(this.#lastTime)) this.#total += this.#lastPower * (r.time - this.#lastTime);
      this.#lastTime = r.time;
      this.#lastPower = r.power ?? 0;
    }
  }

  /** Adds written job rows' energies. */
  written(rows: readonly JobRow[]): void {
    for (const j of rows) {
      const p = j.jobId < this.#count ? this.#powers[j.jobId] : 0;
      const energy = p * (j.endTime - j.beginTime);
      this.#jobs++;
      this.#sum += energy;
      if (energy > this.#most) this.#most = energy;
    }
  }

  /** The stats JSON's `energy` object. */
  energy(): EnergyMetrics {
    const n = this.#jobs;
    return {
      total: this.#total,
      jobs: n,
      per_job_mean: n === 0 ? null : this.#sum / n,
      per_job_max: n === 0 ? null : this.#most,
    };
  }
}
