// The trace reader reads plain rows on a fast path (io/_csv_fast_row.ts) and
// everything else on the general path. Padding a field sends a row to the
// general path without changing its values, so a trace and its padded twin
// must read identically: same jobs, counts and warnings, or the same error.

import fc from "fast-check";
import { parseTrace, type TraceReadOptions } from "../../io/trace_csv.ts";
import { assertEquals } from "../_assert.ts";

const COLUMNS = ["job_submit_time", "num_nodes", "time_limit"];
const OPTIONAL = ["queue", "actual_run_time", "priority", "comment", "user", "account"];

// Mostly clean rows (so that whole traces are read), now and then an odd value.
const value = fc.oneof(
  { weight: 60, arbitrary: fc.integer({ min: 0, max: 20 }).map(String) },
  { weight: 30, arbitrary: fc.integer({ min: 0, max: 100000 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "0",
      "007",
      "",
      "1.5",
      "-3",
      "+4",
      " 7",
      "8 ",
      "1e3",
      "abc",
      "999999999999999",
      "9999999999999999",
      "90071992547409931",
      "2024-01-15T10:30:00Z",
    ),
  },
);
const queueName = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom("pbatch", "pdebug") },
  { weight: 1, arbitrary: fc.constantFrom("", "p,x", "pbatch ", "other") },
);

// User and account names: text fields read like the queue (an empty one is no value).
const ownerName = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom("alice", "bob", "42", "physics") },
  { weight: 1, arbitrary: fc.constantFrom("", "a,b", "bob ", "\u00e9mile") },
);

interface Case {
  header: string[];
  rows: string[][];
  quoteRow: boolean[];
  options: Omit<TraceReadOptions, "file">;
}

const trace: fc.Arbitrary<Case> = fc
  .subarray(OPTIONAL)
  .chain((extra) => fc.shuffledSubarray([...COLUMNS, ...extra], { minLength: 3 + extra.length }))
  .chain((header) =>
    fc.record({
      header: fc.constant(header),
      rows: fc.array(
        fc.tuple(
          fc.array(value, { minLength: header.length + 1, maxLength: header.length + 1 }),
          queueName,
          ownerName,
          ownerName,
          fc.oneof(
            { weight: 40, arbitrary: fc.constant(0) },
            { weight: 1, arbitrary: fc.constantFrom(-1, 1) },
          ),
        ).map(([vals, q, user, account, extraFields]) => {
          const row = header.map((name, i) =>
            name === "queue" || name === "comment"
              ? q
              : name === "user"
              ? user
              : name === "account"
              ? account
              : vals[i]
          );
          if (extraFields > 0) row.push(vals[header.length]);
          if (extraFields < 0) row.pop();
          return row;
        }),
        { maxLength: 30 },
      ),
      quoteRow: fc.array(fc.boolean(), { minLength: 30, maxLength: 30 }),
      options: fc.record({
        runTimeMode: fc.constantFrom("actual" as const, "limit" as const),
        requireSorted: fc.boolean(),
        queues: fc.option(fc.constant(new Set(["pbatch", "pdebug"])), { nil: undefined }),
      }),
    })
  );

// A leading space in the first field sends a row to the general path, which
// trims it: the values stay the same.
function text(c: Case, general: boolean): string {
  const lines = c.rows.map((row, i) => {
    const fields = row.map((v) => v.includes(",") ? `"${v}"` : v);
    if (general || c.quoteRow[i]) fields[0] = " " + fields[0];
    return fields.join(",");
  });
  return [c.header.join(","), ...lines].join("\n") + "\n";
}

function read(t: string, options: Case["options"]): unknown {
  try {
    return parseTrace(t, { ...options, file: "t.csv" });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

Deno.test("trace reader: the fast path reads every row as the general path does (values, counts, warnings, errors)", () => {
  fc.assert(
    fc.property(trace, (c) => {
      // Every row padded: the general path throughout; mixed: rows take either path.
      assertEquals(read(text(c, false), c.options), read(text(c, true), c.options));
    }),
    { seed: 20261203, numRuns: 500 },
  );
});

Deno.test("trace reader: rows of one queue share one string; a plain trace reads as before", () => {
  const t = parseTrace(
    "job_submit_time,num_nodes,queue,time_limit,actual_run_time\n0,4,pbatch,100,50\n5,2,pbatch,60,0\n7,1,pdebug,10,20\n",
    { file: "t.csv", runTimeMode: "actual" },
  );
  assertEquals(t.jobs, [
    { submitTime: 0, numNodes: 4, timeLimit: 100, actualRunTime: 50, queue: "pbatch" },
    { submitTime: 5, numNodes: 2, timeLimit: 60, queue: "pbatch" },
    { submitTime: 7, numNodes: 1, timeLimit: 10, actualRunTime: 20, queue: "pdebug" },
  ]);
  assertEquals([t.overruns, t.limitFallbacks], [1, 1]);
});

Deno.test("trace reader: user and account columns on both paths; an empty one is no value", () => {
  const plain =
    "job_submit_time,user,num_nodes,account,time_limit\n0,alice,4,phys,100\n5,bob,2,,60\n7,,1,chem,10\n";
  const expected = [
    { submitTime: 0, numNodes: 4, timeLimit: 100, user: "alice", account: "phys" },
    { submitTime: 5, numNodes: 2, timeLimit: 60, user: "bob" },
    { submitTime: 7, numNodes: 1, timeLimit: 10, account: "chem" },
  ];
  const r = parseTrace(plain, { file: "u.csv", runTimeMode: "limit" });
  assertEquals(r.jobs, expected);
  // Every row padded: the general path.
  const padded = plain.split("\n").map((l, i) => i > 0 && l !== "" ? " " + l : l).join("\n");
  assertEquals(parseTrace(padded, { file: "u.csv", runTimeMode: "limit" }).jobs, expected);
  // Rows of one user share one string on the fast path.
  const same = parseTrace(
    "job_submit_time,num_nodes,time_limit,user\n0,1,10,alice\n1,1,10,alice\n",
    { file: "s.csv", runTimeMode: "limit" },
  );
  assertEquals(same.jobs.map((j) => j.user), ["alice", "alice"]);
  // A recorded schedule (begin and end times) keeps them too.
  const replay = parseTrace(
    "job_submit_time,begin_time,end_time,num_nodes,time_limit,user,account\n0,5,65,4,60,alice,phys\n",
    { file: "r.csv" },
  );
  assertEquals(replay.recorded, [
    {
      submitTime: 0,
      numNodes: 4,
      timeLimit: 60,
      beginTime: 5,
      endTime: 65,
      user: "alice",
      account: "phys",
    },
  ]);
});
