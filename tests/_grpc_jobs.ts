// A CSV trace's rows as gRPC's JobAppendData (the proto's field names), for
// tests that feed the same jobs to `serve --grpc` and to `simulate`.

// deno-lint-ignore no-explicit-any
type Json = any;

const RENAME: Record<string, string> = {
  job_submit_time: "submit_time",
  time_limit: "limit_time",
};
const TEXT_FIELDS = new Set(["memory", "partition", "user"]);

/** Each row as one JobAppendData; empty cells are left out. */
export function grpcJobs(text: string): Json[] {
  const [header, ...rows] = text.trim().split("\n");
  const names = header.split(",");
  return rows.map((row) => {
    const job: Json = {};
    row.split(",").forEach((v, k) => {
      const name = RENAME[names[k]] ?? names[k];
      if (v !== "") job[name] = TEXT_FIELDS.has(name) ? v : Number(v);
    });
    return job;
  });
}
