// `--resource_columns per_resource`: the pairs are computed in core (serve's
// finish reply adds the same pairs to its resource rows).
export { PerResourceColumns, type ResourceColumns } from "../core/_resource_columns.ts";
