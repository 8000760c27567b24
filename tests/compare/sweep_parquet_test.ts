// `evtsim sweep --format parquet` (issue 29): results.parquet, read back with
// the same library family (hyparquet), holds the very rows of results.csv;
// `sweep collect` keeps it current; a bad --format is one line.

import { parquetReadObjects } from "hyparquet";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT, runCli } from "../_cli.ts";
import { splitAll } from "../../io/_csv_fields.ts";

async function scratch(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "evtsim-sweep-parquet-" });
  await Deno.copyFile(`${ROOT}examples/demo_trace.csv`, `${dir}/demo_trace.csv`);
  // Users for the fairness columns (worst_user is text), two policies, two sizes.
  const lines = (await Deno.readTextFile(`${dir}/demo_trace.csv`)).trim().split("\n");
  await Deno.writeTextFile(
    `${dir}/demo_trace.csv`,
    [
      `${lines[0]},user`,
      ...lines.slice(1, 300).map((l, i) => `${l},${["ann", "bob", "7"][i % 3]}`),
    ].join("\n") + "\n",
  );
  await Deno.writeTextFile(
    `${dir}/sweep.yaml`,
    "traces: [demo_trace.csv]\npolicies: [easy, none]\ntotal_nodes: [64, 128]\n" +
      "options:\n  bsld_tau: [10, 60]\n",
  );
  return dir;
}

// results.csv as rows of text fields ("" for a null).
async function csvRows(path: string): Promise<{ header: string[]; rows: string[][] }> {
  const [head, ...rest] = (await Deno.readTextFile(path)).trim().split("\n");
  return { header: head.split(","), rows: rest.map(splitAll) };
}

async function parquetRows(path: string): Promise<Record<string, unknown>[]> {
  const bytes = await Deno.readFile(path);
  return await parquetReadObjects({ file: bytes.buffer as ArrayBuffer });
}

// The parquet rows as the CSV writes them.
function asCsv(header: string[], rows: Record<string, unknown>[]): string[][] {
  return rows.map((r) => header.map((c) => r[c] === null ? "" : String(r[c])));
}

Deno.test("sweep --format parquet: results.parquet read back equals results.csv; collect keeps it current", async () => {
  const dir = await scratch();
  try {
    const r = await runCli([
      "sweep",
      `${dir}/sweep.yaml`,
      "--results",
      `${dir}/out`,
      "-j",
      "2",
      "--format",
      "parquet",
    ]);
    assertEquals(r.code, 0, r.err.join("\n"));
    assertEquals(
      r.out.at(-1),
      `Results written to: ${dir}/out/results.csv, ${dir}/out/results.parquet and ` +
        `${dir}/out/results.json (8 of 8 cells)`,
    );
    const csv = await csvRows(`${dir}/out/results.csv`);
    const back = await parquetRows(`${dir}/out/results.parquet`);
    assertEquals(Object.keys(back[0]), csv.header);
    assertEquals(asCsv(csv.header, back), csv.rows);
    // Types a notebook can use: numbers stay numbers, counts whole, names text.
    assert(typeof back[0].wait_mean_s === "number" && back[0].index === 0);
    assertEquals(typeof back[0].worst_user, "string");
    assertEquals(back.map((b) => b.total_nodes), [64, 64, 128, 128, 64, 64, 128, 128]);

    // collect without --format rewrites the Parquet file with the CSV.
    await Deno.remove(`${dir}/out/cells/${csv.rows[7][0]}.json`);
    const c = await runCli(["sweep", "collect", `${dir}/out`]);
    assertEquals(c.code, 1);
    const fewer = await parquetRows(`${dir}/out/results.parquet`);
    assertEquals(asCsv(csv.header, fewer), (await csvRows(`${dir}/out/results.csv`)).rows);
    assertEquals(fewer.length, 7);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sweep --format: a bad value, or with --executor slurm, is one line and writes nothing", async () => {
  const dir = await scratch();
  try {
    for (
      const [args, line] of [
        [["--format", "arrow"], "evtsim: --format expects csv or parquet, got 'arrow'"],
        [
          ["--executor", "slurm", "--format", "parquet"],
          "evtsim: --format is not an option of --executor slurm",
        ],
      ]
    ) {
      const r = await runCli(["sweep", `${dir}/sweep.yaml`, "--results", `${dir}/out`, ...args]);
      assertEquals([r.code, r.err], [1, [line]]);
      assertEquals([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
        "demo_trace.csv",
        "sweep.yaml",
      ]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
