// The extended schedule's `nodes` column lives in api/_nodes_column.ts (serve's
// finish reply names a job's nodes the same way).
export { type ExtendedRowFields, NodesColumn } from "../api/_nodes_column.ts";
