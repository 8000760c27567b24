// Parsers for the field formats Slurm's `sacct --parsable2` prints. Each
// takes the field's text and returns its value, or throws a plain `Error`
// whose message is "expected …, got '…'"; the reader adds file, line and
// column. Kept apart from the reader so that every format can be tested on
// its own (tests/io/sacct_test.ts).

import { parseTimestamp } from "./timestamps.ts";

const TIME_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

/**
 * `Submit`/`Start`/`End`: `YYYY-MM-DDTHH:MM:SS` in the controller's local
 * zone (sacct prints no offset), to epoch seconds; `Unknown`, `None` and an
 * empty field (a job not started or not ended) to `undefined`.
 */
export function slurmTime(value: string, timezone: string): number | undefined {
  if (value === "Unknown" || value === "None" || value === "") return undefined;
  if (!TIME_SHAPE.test(value)) {
    throw new Error(`expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got '${value}'`);
  }
  try {
    return parseTimestamp(value, timezone);
  } catch {
    throw new Error(`expected a valid date-time YYYY-MM-DDTHH:MM:SS, got '${value}'`);
  }
}

const LIMIT_SHAPE = /^(?:(\d+)-)?(\d+):(\d{2}):(\d{2})$|^(\d+):(\d{2})$/;

/**
 * `Timelimit` in seconds: `[D-]HH:MM:SS` or `MM:SS`; `UNLIMITED` and
 * `Partition_Limit` (no limit of the job's own) to `undefined`.
 */
export function slurmTimelimit(value: string): number | undefined {
  if (value === "UNLIMITED" || value === "Partition_Limit") return undefined;
  const m = LIMIT_SHAPE.exec(value);
  const bad = () =>
    new Error(`expected [D-]HH:MM:SS, MM:SS, UNLIMITED or Partition_Limit, got '${value}'`);
  if (m === null) throw bad();
  if (m[5] !== undefined) {
    const s = Number(m[6]);
    if (s >= 60) throw bad();
    return Number(m[5]) * 60 + s;
  }
  const d = m[1] === undefined ? 0 : Number(m[1]);
  const h = Number(m[2]);
  const mi = Number(m[3]);
  const s = Number(m[4]);
  if (mi >= 60 || s >= 60 || (m[1] !== undefined && h >= 24)) throw bad();
  const total = ((d * 24 + h) * 60 + mi) * 60 + s;
  if (!Number.isSafeInteger(total)) throw bad();
  return total;
}

const UNIT_MB: Readonly<Record<string, number>> = {
  K: 1 / 1024,
  M: 1,
  G: 1024,
  T: 1024 * 1024,
  P: 1024 * 1024 * 1024,
};

/** Memory asked for, in megabytes (MiB, as Slurm counts them), and what it is per. */
export interface SlurmMemory {
  /** Megabytes. */
  readonly megabytes: number;
  /** `n`: per node, `c`: per CPU (older sacct); absent when the value has no suffix. */
  readonly per?: "node" | "cpu";
}

const MEM_SHAPE = /^(\d+(?:\.\d+)?)([KMGTP])?([nc])?$/;

/** `ReqMem`: `4000M`, `4G`, `16Gn`, `2000Mc`, a bare number of megabytes; empty to `undefined`. */
export function slurmReqMem(value: string): SlurmMemory | undefined {
  if (value === "") return undefined;
  const m = MEM_SHAPE.exec(value);
  if (m === null) {
    throw new Error(`expected a size like 4000M, 4G, 16Gn or 2000Mc, got '${value}'`);
  }
  const megabytes = Number(m[1]) * UNIT_MB[m[2] ?? "M"];
  if (m[3] === undefined) return { megabytes };
  return { megabytes, per: m[3] === "n" ? "node" : "cpu" };
}

const TRES_VALUE = /^(\d+(?:\.\d+)?)([KMGTP])?$/;

/**
 * A TRES string (`ReqTRES`, `AllocTRES`): `billing=4,cpu=4,gres/gpu=2,mem=16G,node=1`
 * to `{ name: amount }`; sizes with a unit (`mem=16G`) are in megabytes.
 */
export function slurmTres(value: string): Readonly<Record<string, number>> {
  const out: Record<string, number> = {};
  if (value === "") return out;
  for (const item of value.split(",")) {
    const eq = item.indexOf("=");
    const name = eq > 0 ? item.slice(0, eq) : "";
    const m = TRES_VALUE.exec(item.slice(eq + 1));
    if (name === "" || m === null || Object.hasOwn(out, name)) {
      throw new Error(`expected name=amount[,name=amount…] with distinct names, got '${value}'`);
    }
    out[name] = m[2] === undefined ? Number(m[1]) : Number(m[1]) * UNIT_MB[m[2]];
  }
  return out;
}

/** GPUs in a TRES map: `gres/gpu`, else the sum of the typed `gres/gpu:TYPE` entries. */
export function tresGpus(tres: Readonly<Record<string, number>>): number | undefined {
  if (Object.hasOwn(tres, "gres/gpu")) return tres["gres/gpu"];
  let sum: number | undefined;
  for (const [k, v] of Object.entries(tres)) {
    if (k.startsWith("gres/gpu:")) sum = (sum ?? 0) + v;
  }
  return sum;
}

/** The parts of a `JobID`. */
export interface SlurmJobId {
  /** The job (array job or heterogeneous leader) number. */
  readonly base: string;
  /** Array task (`123_4`), or the task set of a pending array (`123_[5-9]`). */
  readonly arrayTask?: string;
  /** Heterogeneous component (`123+0`). */
  readonly hetOffset?: number;
  /** Step (`123.batch`, `123.0`, `123.extern`): the line is a step, not a job. */
  readonly step?: string;
}

const JOBID_SHAPE = /^(\d+)(?:_(\d+|\[[^\]|]*\]))?(?:\+(\d+))?(?:\.([A-Za-z0-9_-]+))?$/;

/** `JobID`: `123`, `123_4`, `123_[5-9]`, `123+0`, `123.batch`, `123_4.0` … */
export function slurmJobId(value: string): SlurmJobId {
  const m = JOBID_SHAPE.exec(value);
  if (m === null) {
    throw new Error(
      `expected NNN, NNN_T (array task), NNN+H (heterogeneous component) or NNN.STEP, got '${value}'`,
    );
  }
  return {
    base: m[1],
    ...(m[2] !== undefined ? { arrayTask: m[2] } : {}),
    ...(m[3] !== undefined ? { hetOffset: Number(m[3]) } : {}),
    ...(m[4] !== undefined ? { step: m[4] } : {}),
  };
}

/** A `State` field: the state word and what follows it (`CANCELLED by 1000` → by `1000`). */
export interface SlurmState {
  /** `COMPLETED`, `CANCELLED`, `TIMEOUT`, `FAILED`, `NODE_FAIL`, `PENDING`, `RUNNING`, … */
  readonly state: string;
  /** The user id after `by` (`CANCELLED by 0`). */
  readonly by?: string;
}

const STATE_SHAPE = /^([A-Z_]+)(?: by (\S+))?\+?$/;

/** `State`: `COMPLETED`, `CANCELLED by 0`, `TIMEOUT`, …; empty to `undefined`. */
export function slurmState(value: string): SlurmState | undefined {
  if (value === "") return undefined;
  const m = STATE_SHAPE.exec(value);
  if (m === null) {
    throw new Error(`expected a state like COMPLETED or CANCELLED by 0, got '${value}'`);
  }
  return m[2] === undefined ? { state: m[1] } : { state: m[1], by: m[2] };
}

/** `ExitCode` `status:signal` (`0:0`, `1:0`, `0:9`); empty to `undefined`. */
export function slurmExitCode(value: string): { status: number; signal: number } | undefined {
  if (value === "") return undefined;
  const m = /^(\d+):(\d+)$/.exec(value);
  if (m === null) throw new Error(`expected status:signal like 0:0, got '${value}'`);
  return { status: Number(m[1]), signal: Number(m[2]) };
}

/** A whole number ≥ `min` (`NNodes` ≥ 1, `NCPUS` ≥ 0). */
export function slurmCount(value: string, min: number, what: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    throw new Error(`expected ${what}, got '${value}'`);
  }
  return n;
}
