// Result rows (sweep's results.csv) as an Apache Parquet file, through the
// maintained `hyparquet-writer` package, as io/schedule_parquet.ts writes the
// schedule: the CSV's columns with the same names, in the same order, and
// the same values; an empty CSV field is a null.

import { parquetWriteBuffer } from "hyparquet-writer";

/** A value of a result row. */
export type ResultValue = string | number | boolean | null;

/** Columns that hold counts: whole numbers (INT32), the others DOUBLE. */
const COUNTS = new Set(["index", "jobs", "jobs_excluded", "users"]);

/**
 * The Parquet file of `rows` with `columns` in order. A column's type:
 * INT32 for the counts (index, jobs, jobs_excluded, users), DOUBLE for any
 * other column of numbers only, BOOLEAN for booleans only, STRING for the rest
 * (a mixed column holds each value as the CSV writes it). Every column is
 * nullable.
 *
 * @example
 * ```ts
 * import { resultsParquet } from "./results_parquet.ts";
 * import { parquetReadObjects } from "hyparquet";
 * const bytes = resultsParquet(["id", "index", "wait_mean_s"], [
 *   { id: "a1", index: 0, wait_mean_s: 12.5 },
 *   { id: "b2", index: 1, wait_mean_s: null },
 * ]);
 * const rows = await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
 * console.assert(rows[1].id === "b2" && rows[0].wait_mean_s === 12.5 && rows[1].wait_mean_s === null);
 * ```
 */
export function resultsParquet(
  columns: readonly string[],
  rows: readonly Readonly<Record<string, ResultValue | undefined>>[],
): Uint8Array {
  const columnData = columns.map((name) => {
    const data = rows.map((r) => r[name] ?? null);
    const given = data.filter((v) => v !== null);
    const numbers = given.every((v) => typeof v === "number");
    if (
      numbers && COUNTS.has(name) &&
      given.every((v) => Number.isInteger(v) && Math.abs(v as number) < 2 ** 31)
    ) {
      return { name, data, type: "INT32" as const };
    }
    if (numbers && given.length > 0) return { name, data, type: "DOUBLE" as const };
    if (given.length > 0 && given.every((v) => typeof v === "boolean")) {
      return { name, data, type: "BOOLEAN" as const };
    }
    return { name, data: data.map((v) => v === null ? null : String(v)), type: "STRING" as const };
  });
  return new Uint8Array(parquetWriteBuffer({ columnData }));
}
