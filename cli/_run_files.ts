// Reading a finished run back: the schedule CSV `simulate` writes (--outfile)
// and the resource CSV beside it (--resource_trace), column by column, with
// each bad line reported at its file, line and field. Used by `compare` (for
// the percentiles) and `report` (for the charts).

import type { CapacityStep } from "../core/metrics.ts";
import { checkInterrupt } from "../core/_interrupt.ts";
import { EvtsimError } from "../core/errors.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import { boundedSlowdown } from "../io/stats_json.ts";
import { splitAll } from "../io/_csv_fields.ts";
import { hostlistSize } from "../io/hostlist.ts";

/** The finished jobs of a schedule CSV, one typed array per column. */
export interface ScheduleColumns {
  readonly path: string;
  readonly count: number;
  readonly submit: Float64Array;
  readonly begin: Float64Array;
  readonly end: Float64Array;
  readonly nodes: Float64Array;
  /** 0 for a job that ran to its end; otherwise cancelled, failed or killed. */
  readonly exit: Float64Array;
  /** Each job's queue, with a queue column (empty: none). */
  readonly queue?: readonly string[];
  /** Each job's user, with the extended columns (`trace_user`; empty: none). */
  readonly user?: readonly string[];
  /**
   * Each job's nodes as a Slurm hostlist, with the extended columns
   * (`nodes`; empty: none): checked well formed when read.
   */
  readonly hostlists?: readonly string[];
}

/** The resource timeline: one sample per change of the allocation. */
export interface ResourceColumns {
  readonly path: string;
  readonly time: Float64Array;
  readonly allocated: Float64Array;
  readonly totalNodes: number;
  /**
   * The usable nodes over time (free + allocated on each row), as the
   * metric set's capacity: a number when it never changed.
   */
  readonly capacity: number | CapacityStep[];
  /**
   * Units used of each resource over time, by resource name: the `R_used`
   * columns `--resource_columns per_resource` adds on a machine (absent
   * without them).
   */
  readonly used?: ReadonlyMap<string, Float64Array>;
}

const SCHEDULE_COLUMNS = ["job_submit_time", "begin_time", "end_time", "num_nodes", "exit_status"];

/** Every column a schedule CSV of simulate's may have (any layout); all but the queue, trace job id, user and nodes are numbers. */
const SCHEDULE_HEADER_COLUMNS = new Set([
  ...SCHEDULE_COLUMNS,
  "q_id",
  "queue",
  "time_limit",
  "job_id",
  "wait_time",
  "bounded_slowdown",
  "trace_job_id",
  "trace_user",
  "nodes",
]);

// What a column holds: text (the queue), a number, a whole number, or a
// whole number of at least 0 (free nodes are negative under a capacity cut).
const TEXT = 0, NUMBER = 1, WHOLE = 2, COUNT = 3;
const KIND: Readonly<Record<string, number>> = {
  queue: TEXT,
  q_id: TEXT,
  trace_job_id: TEXT,
  trace_user: TEXT,
  nodes: TEXT,
  num_nodes: COUNT,
  job_id: COUNT,
  allocated_nodes: COUNT,
  exit_status: WHOLE,
  free_nodes: WHOLE,
};

// The fields of one data line, as many as the header has; a quoted field
// (a queue name with a comma) is one field.
function fieldsOf(
  line: string,
  header: readonly string[],
  file: string,
  lineNo: number,
): string[] {
  const f = line.indexOf('"') === -1 ? line.split(",") : splitAll(line);
  if (f.length !== header.length) {
    throw new EvtsimError(
      "input",
      `expected ${header.length} fields (${header.join(",")}), got ${f.length}`,
      { file, line: lineNo },
    );
  }
  return f;
}

// The value of a plain decimal as simulate writes it, or NaN for anything
// else (hex, Infinity, blanks, an empty field): only digits, signs, the
// point and exponents pass to Number, which then takes only decimals.
function plainNumber(text: string): number {
  const n = text.length;
  if (n === 0) return NaN;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if ((c < 48 || c > 57) && c !== 46 && c !== 45 && c !== 43 && c !== 101 && c !== 69) {
      return NaN;
    }
  }
  return +text;
}

// Field `text` of a column of `kind` as a number, or a one-line error.
function numberAt(text: string, kind: number, column: string, file: string, line: number): number {
  const v = plainNumber(text);
  if (
    Math.abs(v) <= Number.MAX_SAFE_INTEGER &&
    (kind === NUMBER || (Number.isInteger(v) && (kind === WHOLE || v >= 0)))
  ) {
    return v;
  }
  const what = !(Math.abs(v) <= Number.MAX_SAFE_INTEGER)
    ? "a number"
    : kind === COUNT
    ? "a whole number of at least 0"
    : "a whole number";
  throw new EvtsimError("input", `expected ${what}, got '${shown(text)}'`, {
    file,
    line,
    field: column,
  });
}

function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * Reads a schedule CSV (any of simulate's layouts: with or without a queue
 * column, extended output, whole seconds or msec). Every row must have the
 * header's fields, and every field but the queue must be a number.
 */
export async function readScheduleCsv(path: string): Promise<ScheduleColumns> {
  const lines = await linesOf(path, "schedule CSV");
  const header = (lines[0] ?? "").split(",");
  const notOurs = header.find((c, i) => !SCHEDULE_HEADER_COLUMNS.has(c) || header.indexOf(c) < i);
  const missing = SCHEDULE_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0 || notOurs !== undefined) {
    const why = missing.length > 0
      ? `header lacks ${missing.join(", ")}`
      : header.indexOf(notOurs!) < header.lastIndexOf(notOurs!)
      ? `header has column '${notOurs}' twice`
      : `header has an unknown column '${shown(notOurs!)}'`;
    throw new EvtsimError("input", `not a schedule CSV (simulate --outfile): ${why}`, {
      file: path,
      line: 1,
    });
  }
  const kinds = header.map((c) => KIND[c] ?? NUMBER);
  let n = lines.length - 1;
  while (n > 0 && lines[n] === "") n--;
  const cols = Array.from({ length: 5 }, () => new Float64Array(n));
  // The array each header column's values go to, if the report keeps them.
  const into = header.map((c) => cols[SCHEDULE_COLUMNS.indexOf(c)]);
  // The labels the report's breakdowns group by.
  const queueAt = header.findIndex((c) => c === "queue" || c === "q_id");
  const userAt = header.indexOf("trace_user");
  const hostsAt = header.indexOf("nodes");
  const queue: string[] | undefined = queueAt < 0 ? undefined : new Array(n);
  const user: string[] | undefined = userAt < 0 ? undefined : new Array(n);
  const hostlists: string[] | undefined = hostsAt < 0 ? undefined : new Array(n);
  for (let i = 1; i <= n; i++) {
    if ((i & 4095) === 0) checkInterrupt();
    const f = fieldsOf(lines[i], header, path, i + 1);
    if (queue !== undefined) queue[i - 1] = f[queueAt];
    if (user !== undefined) user[i - 1] = f[userAt];
    if (hostlists !== undefined) hostlists[i - 1] = checkedHostlist(f[hostsAt], path, i + 1);
    for (let c = 0; c < f.length; c++) {
      if (kinds[c] === TEXT) continue;
      const v = numberAt(f[c], kinds[c], header[c], path, i + 1);
      const to = into[c];
      if (to !== undefined) to[i - 1] = v;
    }
  }
  const [submit, begin, end, nodes, exit] = cols;
  return {
    path,
    count: n,
    submit,
    begin,
    end,
    nodes,
    exit,
    ...(queue !== undefined ? { queue } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(hostlists !== undefined ? { hostlists } : {}),
  };
}

// A `nodes` field, or a one-line error naming it: a well-formed hostlist of
// at most as many names as a report draws (its Gantt chart expands it).
function checkedHostlist(text: string, file: string, line: number): string {
  let size: number;
  try {
    size = hostlistSize(text);
  } catch (e) {
    if (!(e instanceof EvtsimError)) throw e;
    throw new EvtsimError("input", `expected a Slurm hostlist: ${e.message}`, {
      file,
      line,
      field: "nodes",
    });
  }
  if (size > MAX_REPORT_NODES) {
    throw new EvtsimError(
      "input",
      `hostlist '${
        shown(text)
      }' names ${size} nodes, more than a report draws (${MAX_REPORT_NODES})`,
      { file, line, field: "nodes" },
    );
  }
  return text;
}

const RESOURCE_HEADER = ["time", "free_nodes", "allocated_nodes"];

/**
 * Most nodes a run may have to be reported: the occupancy chart keeps one
 * slot per node (2^24 is far beyond any machine's node count, and bounds
 * what a hostile resource file can make the report allocate).
 */
export const MAX_REPORT_NODES = 1 << 24;

/** Reads a resource CSV (`time,free_nodes,allocated_nodes`), row by row as strictly. */
export async function readResourceCsv(path: string): Promise<ResourceColumns> {
  const lines = await linesOf(path, "resource CSV");
  // `--resource_columns per_resource` adds pairs after DR_EVT's three columns: read those three.
  const header = (lines[0] ?? "").split(",");
  if (header.slice(0, 3).join(",") !== RESOURCE_HEADER.join(",")) {
    throw new EvtsimError(
      "input",
      "not a resource CSV (simulate --resource_trace): expected the header " +
        "'time,free_nodes,allocated_nodes'",
      { file: path, line: 1 },
    );
  }
  let n = lines.length - 1;
  while (n > 0 && lines[n] === "") n--;
  const time = new Float64Array(n);
  const allocated = new Float64Array(n);
  let totalNodes = 0;
  const steps: CapacityStep[] = [];
  // The per-resource pairs' used units (R_free,R_used after the three).
  const usedAt: [string, number, Float64Array][] = [];
  for (let k = 3; k < header.length; k++) {
    if (header[k].endsWith("_used")) usedAt.push([header[k], k, new Float64Array(n)]);
  }
  for (let i = 1; i <= n; i++) {
    if ((i & 4095) === 0) checkInterrupt();
    const f = fieldsOf(lines[i], header, path, i + 1);
    time[i - 1] = numberAt(f[0], NUMBER, "time", path, i + 1);
    for (const [column, k, used] of usedAt) {
      used[i - 1] = numberAt(f[k], COUNT, column, path, i + 1);
    }
    const free = numberAt(f[1], WHOLE, "free_nodes", path, i + 1);
    allocated[i - 1] = numberAt(f[2], COUNT, "allocated_nodes", path, i + 1);
    const nodes = free + allocated[i - 1];
    if (nodes > MAX_REPORT_NODES) {
      throw new EvtsimError(
        "input",
        `free_nodes + allocated_nodes is ${nodes} nodes, more than a report draws (${MAX_REPORT_NODES})`,
        { file: path, line: i + 1 },
      );
    }
    if (nodes > totalNodes) totalNodes = nodes;
    if (steps.length === 0 || steps[steps.length - 1].nodes !== nodes) {
      steps.push({ time: steps.length === 0 ? -Infinity : time[i - 1], nodes });
    }
  }
  return {
    path,
    time,
    allocated,
    totalNodes,
    capacity: steps.length <= 1 ? totalNodes : steps,
    ...(usedAt.length === 0 ? {} : {
      used: new Map(usedAt.map(([column, , used]) => [column.slice(0, -"_used".length), used])),
    }),
  };
}

async function linesOf(path: string, what: string): Promise<string[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new EvtsimError("input", `${what} not found`, { file: path });
    }
    if (!isFsError(e)) throw e;
    // A folder, say: one line naming the path.
    throw new EvtsimError("input", `cannot read the ${what}: ${describeFsError(e)}`, {
      file: path,
    });
  }
  return text.split(/\r?\n/);
}

/** Waits and bounded slowdowns of the jobs that ran to their end, ascending. */
export function jobFigures(s: ScheduleColumns): { waits: Float64Array; slowdowns: Float64Array } {
  const waits: number[] = [];
  const slowdowns: number[] = [];
  for (let i = 0; i < s.count; i++) {
    if (s.exit[i] !== 0) continue;
    waits.push(s.begin[i] - s.submit[i]);
    slowdowns.push(boundedSlowdown({
      jobId: i,
      submitTime: s.submit[i],
      beginTime: s.begin[i],
      endTime: s.end[i],
      numNodes: s.nodes[i],
      timeLimit: 0,
      queue: undefined,
    }));
  }
  return {
    waits: Float64Array.from(waits).sort(),
    slowdowns: Float64Array.from(slowdowns).sort(),
  };
}
