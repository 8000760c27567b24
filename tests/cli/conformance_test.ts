// Every DR_EVT fixture in tests/fixtures/drevt runs through the public
// command (`deno run cli/main.ts simulate ...`) and is compared the way
// DR_EVT's own runner compares (see tests/fixtures/drevt/README.md).

import { assertEquals } from "../_assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const FIXTURES = `${ROOT}tests/fixtures/drevt/`;

interface Fixture {
  readonly id: string;
  readonly args: string[];
  readonly compare: { jobs?: "exact"; resources?: "consolidated" | "per-event" };
}

function csvLines(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/\s+/g, "")).filter((l) => l !== "");
}

// Expected files quote a running-jobs list ("0,2"); only the first three
// columns are compared, so cut at the third comma outside quotes.
function firstColumns(line: string, n: number): string {
  const out: string[] = [];
  let cur = "";
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      out.push(cur);
      cur = "";
      if (out.length === n) break;
      continue;
    } else cur += ch;
  }
  if (out.length < n) out.push(cur);
  return out.join(",");
}

function lastPerTimestamp(rows: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const t = rows[i].split(",")[0];
    const next = rows[i + 1]?.split(",")[0];
    if (next !== t) out.push(rows[i]);
  }
  return out;
}

function totalNodesOf(args: string[]): string {
  const i = args.findIndex((a) => a === "--total_nodes" || a === "-n");
  return i >= 0 ? args[i + 1] : "795";
}

for (
  const entry of [...Deno.readDirSync(FIXTURES)].filter((e) => e.isDirectory).map((e) => e.name)
    .sort()
) {
  const dir = FIXTURES + entry + "/";
  const fixture: Fixture = JSON.parse(Deno.readTextFileSync(dir + "fixture.json"));
  Deno.test(`conformance: ${fixture.id}`, async () => {
    const out = await Deno.makeTempDir({ prefix: "evtsim-conf-" });
    try {
      const jobsPath = `${out}/jobs.csv`;
      const resPath = `${out}/res.csv`;
      const cmd = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-env",
          "--allow-sys",
          `${ROOT}cli/main.ts`,
          "simulate",
          dir + "input.csv",
          ...fixture.args,
          "--outfile",
          jobsPath,
          "--resource_trace",
          resPath,
        ],
        stdout: "piped",
        stderr: "piped",
      });
      const r = await cmd.output();
      const stderr = new TextDecoder().decode(r.stderr);
      assertEquals(r.code, 0, `simulate failed: ${stderr}`);

      const produced = csvLines(Deno.readTextFileSync(jobsPath)).slice(1).map((line, i) => {
        const c = line.split(",");
        return `${i},${c[1]},${c[2]}`;
      });
      const expectedJobs = csvLines(Deno.readTextFileSync(dir + "expected_jobs.csv")).slice(1);
      assertEquals(produced, expectedJobs, "schedule differs");

      if (fixture.compare.resources !== undefined) {
        const total = totalNodesOf(fixture.args);
        let rows = csvLines(Deno.readTextFileSync(resPath)).slice(1);
        if (rows[0] === `0,${total},0`) rows = rows.slice(1);
        let got = rows.map((l) => {
          const [t, free, used] = l.split(",");
          return `${t},${used},${free}`;
        });
        let want = csvLines(Deno.readTextFileSync(dir + "expected_resources.csv")).slice(1)
          .map((l) => firstColumns(l, 3));
        if (fixture.compare.resources === "consolidated") {
          got = lastPerTimestamp(got);
          want = lastPerTimestamp(want);
        }
        assertEquals(got, want, "resource timeline differs");
      }
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  });
}
