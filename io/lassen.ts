// The LLNL Lassen 33-column job trace as DR_EVT's `lassen` format reads it:
// fixed column positions, a header row that is skipped, and recorded begin and
// end times, so a Lassen trace is always replayed.

import type { ColumnPlan } from "./_trace_columns.ts";

/** Number of columns of a Lassen trace row. */
export const LASSEN_COLUMN_COUNT = 33;

/**
 * 0-based positions of the columns DR_EVT reads from a Lassen trace. `time_limit` is taken as
 * seconds, as DR_EVT's trace-format documentation says for every format.
 */
export const LASSEN_COLUMNS = {
  num_nodes: 11,
  begin_time: 23,
  end_time: 24,
  job_submit_time: 29,
  queue: 30,
  time_limit: 32,
} as const;

/** The column plan of a Lassen trace; the header row's names are not consulted. */
export function lassenPlan(): ColumnPlan {
  return {
    submit: { index: LASSEN_COLUMNS.job_submit_time, name: "job_submit_time" },
    nodes: { index: LASSEN_COLUMNS.num_nodes, name: "num_nodes" },
    limit: { index: LASSEN_COLUMNS.time_limit, name: "time_limit" },
    queue: { index: LASSEN_COLUMNS.queue, name: "queue" },
    actual: undefined,
    begin: { index: LASSEN_COLUMNS.begin_time, name: "begin_time" },
    end: { index: LASSEN_COLUMNS.end_time, name: "end_time" },
    priority: undefined,
    fieldCount: LASSEN_COLUMN_COUNT,
    names: undefined,
  };
}
