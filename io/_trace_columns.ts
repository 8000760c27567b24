// The columns of a DR_EVT trace: where each field is (from the header's names
// for `simple`, fixed for `lassen`), and which value slot the splitter fills.

import type { FieldReader } from "./_csv_values.ts";
import { splitAll } from "./_csv_fields.ts";

/** A column the reader uses: its 0-based position and the name messages give it. */
export interface PlannedColumn {
  /** 0-based field position. */
  readonly index: number;
  /** Header name (or canonical name for `lassen`). */
  readonly name: string;
}

/** Where the fields of a trace format are; shared by the `simple` and `lassen` readers. */
export interface ColumnPlan {
  /** `job_submit_time`. */
  readonly submit: PlannedColumn;
  /** `num_nodes`. */
  readonly nodes: PlannedColumn;
  /** `time_limit` or an alias. */
  readonly limit: PlannedColumn;
  /** `q_id` or `queue`, if present. */
  readonly queue: PlannedColumn | undefined;
  /** Actual run time or an alias, if present. */
  readonly actual: PlannedColumn | undefined;
  /** `begin_time` (replay only). */
  readonly begin: PlannedColumn | undefined;
  /** `end_time` (replay only). */
  readonly end: PlannedColumn | undefined;
  /** `priority` (a job's priority within its queue), if present. */
  readonly priority: PlannedColumn | undefined;
  /** `user` (the submitting user, for the fair-share picker), if present. */
  readonly user?: PlannedColumn | undefined;
  /** `account` (the user's account or group, for the fair-share picker), if present. */
  readonly account?: PlannedColumn | undefined;
  /** Fields every data line must have. */
  readonly fieldCount: number;
  /** Header names by position, when the format has meaningful ones. */
  readonly names: readonly string[] | undefined;
}

/** Accepted names of the time limit column, in the order DR_EVT tries them. */
export const TIME_LIMIT_ALIASES = ["time_limit", "timelimit", "walltime"];
/** Accepted names of the actual run time column, in the order DR_EVT tries them. */
export const ACTUAL_ALIASES = [
  "actual_run_time",
  "actual_runtime",
  "duration",
  "actual_duration",
  "run_time",
];
const KNOWN_NAMES = new Set([
  "job_submit_time",
  "num_nodes",
  "q_id",
  "queue",
  "begin_time",
  "end_time",
  "priority",
  "user",
  "account",
  ...TIME_LIMIT_ALIASES,
  ...ACTUAL_ALIASES,
]);

/** Value slots, in the order of the plan's columns. */
export const SUBMIT = 0,
  NODES = 1,
  LIMIT = 2,
  QUEUE = 3,
  ACTUAL = 4,
  BEGIN = 5,
  END = 6,
  PRIORITY = 7,
  USER = 8,
  ACCOUNT = 9;

/** The slots whose values are text, not numbers (a bit per slot). */
export const TEXT_SLOTS = (1 << QUEUE) | (1 << USER) | (1 << ACCOUNT);

/** The column plan of a `simple` trace from its header line. */
export function headerPlan(line: string, r: FieldReader): ColumnPlan {
  const names = splitAll(line);
  const at = new Map<string, number>();
  names.forEach((name, i) => {
    if (!at.has(name)) at.set(name, i);
    else if (KNOWN_NAMES.has(name)) {
      throw r.fail(`expected each column name once, got '${name}' twice`, name);
    }
  });
  const find = (aliases: readonly string[]): PlannedColumn | undefined => {
    for (const name of aliases) {
      const index = at.get(name);
      if (index !== undefined) return { index, name };
    }
    return undefined;
  };
  const need = (aliases: readonly string[], why = ""): PlannedColumn => {
    const found = find(aliases);
    if (found !== undefined) return found;
    const accepted = aliases.length > 1 ? ` (accepted names: ${aliases.join(", ")})` : "";
    throw r.fail(`expected this column in the header${why}${accepted}, got none`, aliases[0]);
  };
  const submit = need(["job_submit_time"]);
  const nodes = need(["num_nodes"]);
  const limit = need(TIME_LIMIT_ALIASES);
  const begin = find(["begin_time"]);
  const end = find(["end_time"]);
  if ((begin === undefined) !== (end === undefined)) {
    const [has, lacks] = begin !== undefined
      ? ["begin_time", "end_time"]
      : ["end_time", "begin_time"];
    throw r.fail(`ambiguous trace: has ${has} but not ${lacks}`, lacks);
  }
  const actual = find(ACTUAL_ALIASES);
  const queue = find(["q_id", "queue"]);
  const priority = find(["priority"]);
  const user = find(["user"]);
  const account = find(["account"]);
  return {
    submit,
    nodes,
    limit,
    queue,
    actual,
    begin,
    end,
    priority,
    user,
    account,
    fieldCount: names.length,
    names,
  };
}

/** Field position → value slot (−1 = not read). */
export function slotTable(plan: ColumnPlan): Int8Array {
  const cols = [
    plan.submit,
    plan.nodes,
    plan.limit,
    plan.queue,
    plan.actual,
    plan.begin,
    plan.end,
    plan.priority,
    plan.user,
    plan.account,
  ];
  let size = 0;
  for (const c of cols) if (c !== undefined && c.index + 1 > size) size = c.index + 1;
  const table = new Int8Array(size).fill(-1);
  cols.forEach((c, slot) => {
    if (c !== undefined) table[c.index] = slot;
  });
  return table;
}
