// `simulate` keeps a CSV trace's jobs in columns and makes the job objects a
// chunk at a time (io/_job_columns.ts): the objects must be the ones the
// reader gives (same values, same keys in the same order), the overrun
// policies and the bad-input errors the same, and a trace out of submit
// order must still be read sorted (as objects).

import { LOAD_DEFAULTS } from "../_trace_jobs.ts";
import fc from "fast-check";
import { assert, assertEquals, assertRejects } from "../_assert.ts";
import { EvtsimError } from "../../core/errors.ts";
import type { JobSpec } from "../../core/types.ts";
import { loadInput, type LoadOptions } from "../../cli/load.ts";

const OPTIONS: LoadOptions = LOAD_DEFAULTS;

// Both ways of loading one text: as objects, and as columns made into objects.
async function both(text: string, options: Partial<LoadOptions> = {}) {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/t.csv`;
    await Deno.writeTextFile(path, text);
    const plain = await loadInput(path, { ...OPTIONS, ...options });
    const cols = await loadInput(path, { ...OPTIONS, ...options, columns: true });
    return { plain, cols, path };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

// The key order too: a JSON text shows it.
function json(jobs: readonly JobSpec[]): string {
  return JSON.stringify(jobs, (_k, v) => Object.is(v, -0) ? "-0" : v);
}

const row = fc.record({
  submit: fc.oneof(fc.nat(50), fc.constant(2 ** 31 + 5), fc.constant(4_000_000_000)),
  nodes: fc.nat(64),
  limit: fc.oneof(fc.nat(1000), fc.constant(2 ** 40)),
  actual: fc.oneof(fc.constant(""), fc.nat(1200)),
  queue: fc.constantFrom("", "pbatch", "pdebug", "a_queue_name_longer_than_13"),
  priority: fc.oneof(fc.constant(""), fc.integer({ min: -5, max: 5 })),
  user: fc.constantFrom("", "alice", "bob"),
  account: fc.constantFrom("", "acct1", "acct2"),
});

Deno.test("columns give the reader's job objects: values, keys and order, sorted or not (property)", async () => {
  const seed = 34;
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 0, maxLength: 40 }),
        fc.subarray(["queue", "priority", "user", "account", "actual_run_time"]),
        fc.constantFrom("run", "kill", "raise"),
        fc.boolean(),
        async (rows, extra, overrun, sorted) => {
          if (sorted) rows = [...rows].sort((a, b) => a.submit - b.submit);
          const header = ["job_submit_time", "num_nodes", "time_limit", ...extra];
          const lines = rows.map((r) => {
            const v: Record<string, string | number> = {
              job_submit_time: r.submit,
              num_nodes: r.nodes,
              time_limit: r.limit,
              queue: r.queue,
              priority: r.priority,
              user: r.user,
              account: r.account,
              actual_run_time: r.actual,
            };
            return header.map((h) => v[h]).join(",");
          });
          const text = [header.join(","), ...lines].join("\n") + "\n";
          const { plain, cols } = await both(text, {
            overrun: overrun as LoadOptions["overrun"],
            runTimeMode: "limit",
          });
          const c = cols.columns;
          const inOrder = rows.every((r, i) => i === 0 || rows[i - 1].submit <= r.submit);
          assertEquals(c !== undefined, inOrder);
          const got = c === undefined ? cols.jobs : [...c.slice(0, 7), ...c.slice(7, c.length)];
          assertEquals(json(got), json(plain.jobs));
          if (c !== undefined) {
            assertEquals(cols.jobs.length, 0);
            for (let i = 0; i < c.length; i++) {
              assertEquals(c.owner(i), {
                user: plain.jobs[i].user,
                account: plain.jobs[i].account,
              });
            }
          }
          assertEquals(cols.messages, plain.messages);
          assertEquals(cols.linesRead, plain.linesRead);
        },
      ),
      { seed, numRuns: 150 },
    );
  } catch (e) {
    throw new Error(`seed ${seed}: ${(e as Error).message}`);
  }
});

Deno.test("columns: integers past 2^31 come back exact", async () => {
  const { cols } = await both(
    "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,10,5\n4000000000,2,1099511627776,0\n",
    { runTimeMode: "limit" },
  );
  const jobs = cols.columns!.slice(0, 2);
  assertEquals(jobs, [
    { submitTime: 0, numNodes: 1, timeLimit: 10, actualRunTime: 5 },
    { submitTime: 4000000000, numNodes: 2, timeLimit: 1099511627776, actualRunTime: 0 },
  ]);
});

Deno.test("columns: a bad row is the same one-line error, and a trace past 2^53 s too", async () => {
  for (
    const text of [
      "job_submit_time,num_nodes,time_limit\n0,1,10\n5,x,10\n",
      "job_submit_time,num_nodes,time_limit\n0,1,9007199254740991\n5,1,9007199254740991\n",
    ]
  ) {
    const dir = await Deno.makeTempDir();
    try {
      const path = `${dir}/t.csv`;
      await Deno.writeTextFile(path, text);
      const a = await assertRejects(() => loadInput(path, OPTIONS));
      const b = await assertRejects(() => loadInput(path, { ...OPTIONS, columns: true }));
      assert(a instanceof EvtsimError && b instanceof EvtsimError);
      assertEquals(b.message, a.message);
      assert(!b.message.includes("\n"));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});
