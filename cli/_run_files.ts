// Reading a finished run back: the schedule CSV `simulate` writes (--outfile)
// and the resource CSV beside it (--resource_trace), column by column, with
// each bad line reported at its file, line and field. Used by `compare` (for
// the percentiles) and `report` (for the charts).

import { EvtsimError } from "../core/errors.ts";
import { describeFsError, isFsError } from "../io/fs_errors.ts";
import { boundedSlowdown } from "../io/stats_json.ts";

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
}

/** The resource timeline: one sample per change of the allocation. */
export interface ResourceColumns {
  readonly path: string;
  readonly time: Float64Array;
  readonly allocated: Float64Array;
  readonly totalNodes: number;
}

const SCHEDULE_COLUMNS = ["job_submit_time", "begin_time", "end_time", "num_nodes", "exit_status"];

/**
 * Reads a schedule CSV (any of simulate's layouts: with or without a queue
 * column, extended output, whole seconds or msec).
 */
export async function readScheduleCsv(path: string): Promise<ScheduleColumns> {
  const lines = await linesOf(path, "schedule CSV");
  const header = (lines[0] ?? "").split(",");
  const idx = SCHEDULE_COLUMNS.map((c) => header.indexOf(c));
  const missing = SCHEDULE_COLUMNS.filter((_, i) => idx[i] < 0);
  if (missing.length > 0) {
    throw new EvtsimError(
      "input",
      `not a schedule CSV (simulate --outfile): header lacks ${missing.join(", ")}`,
      { file: path, line: 1 },
    );
  }
  let n = lines.length - 1;
  while (n > 0 && lines[n] === "") n--;
  const cols = Array.from({ length: 5 }, () => new Float64Array(n));
  for (let i = 1; i <= n; i++) {
    const f = lines[i].split(",");
    // A quoted queue name may hold commas; the columns after it shift right.
    const shift = f.length - header.length;
    for (let c = 0; c < 5; c++) {
      const at = idx[c] > header.indexOf("queue") && header.indexOf("queue") >= 0
        ? idx[c] + shift
        : idx[c];
      const v = Number(f[at]);
      if (f[at] === undefined || f[at] === "" || !Number.isFinite(v)) {
        throw new EvtsimError(
          "input",
          `expected a number, got '${f[at] ?? ""}'`,
          { file: path, line: i + 1, field: SCHEDULE_COLUMNS[c] },
        );
      }
      cols[c][i - 1] = v;
    }
  }
  const [submit, begin, end, nodes, exit] = cols;
  return { path, count: n, submit, begin, end, nodes, exit };
}

/** Reads a resource CSV (`time,free_nodes,allocated_nodes`). */
export async function readResourceCsv(path: string): Promise<ResourceColumns> {
  const lines = await linesOf(path, "resource CSV");
  if (lines[0] !== "time,free_nodes,allocated_nodes") {
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
  const names = ["time", "free_nodes", "allocated_nodes"];
  for (let i = 1; i <= n; i++) {
    const f = lines[i].split(",");
    const v = f.map(Number);
    for (let c = 0; c < 3; c++) {
      if (f[c] === undefined || f[c] === "" || !Number.isFinite(v[c])) {
        throw new EvtsimError("input", `expected a number, got '${f[c] ?? ""}'`, {
          file: path,
          line: i + 1,
          field: names[c],
        });
      }
    }
    time[i - 1] = v[0];
    allocated[i - 1] = v[2];
    totalNodes = Math.max(totalNodes, v[1] + v[2]);
  }
  return { path, time, allocated, totalNodes };
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
