// All-or-nothing outputs (issue 18, defect 1): the output set commits every
// file or none, a failure at any byte of any file or at any rename leaves the
// old files byte-identical and nothing else behind, and the property holds
// through the whole command on random traces.

import fc from "fast-check";
import {
  abortAllOutputs,
  AtomicOutputSet,
  DENO_OUTPUT_FS,
  type OutputFileSystem,
} from "../../io/atomic_writer.ts";
import { traceToCsv } from "../../bench/gen_trace.ts";
import { arbTrace } from "../../testing/mod.ts";
import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";

function listDir(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

function osError(code: string, text: string): Error {
  return Object.assign(new Error(`${text} (os error 28)`), { code });
}

type Op = "create" | "write" | "sync" | "link" | "rename";

/** The real file system, failing once at the `n`-th call of `op` (or at byte `byte` of writes). */
class FaultyFs implements OutputFileSystem {
  private calls = 0;
  private written = 0;
  failed = false;

  constructor(
    private readonly op: Op,
    private readonly n: number,
    private readonly byte = 0,
    /** False: a file system without hard links (link always fails, old files are moved aside). */
    private readonly links = true,
  ) {}

  private hit(op: Op): void {
    if (op !== this.op || this.failed) return;
    if (this.calls++ === this.n) {
      this.failed = true;
      throw osError(op === "write" ? "ENOSPC" : "EIO", `${op} failed`);
    }
  }

  create(path: string) {
    this.hit("create");
    const f = DENO_OUTPUT_FS.create(path);
    return {
      write: (b: Uint8Array) => {
        if (this.op === "write" && !this.failed && this.written + b.length > this.byte) {
          // Part of the chunk reaches the disk, then the device is full.
          const room = this.byte - this.written;
          if (room > 0) f.write(b.subarray(0, room));
          this.written = this.byte;
          this.failed = true;
          throw osError("ENOSPC", "No space left on device");
        }
        this.written += b.length;
        return f.write(b);
      },
      sync: () => {
        this.hit("sync");
        f.sync();
      },
      close: () => f.close(),
    };
  }
  rename(from: string, to: string) {
    this.hit("rename");
    DENO_OUTPUT_FS.rename(from, to);
  }
  remove(path: string) {
    DENO_OUTPUT_FS.remove(path);
  }
  link(from: string, to: string) {
    if (!this.links) throw osError("EPERM", "Operation not permitted");
    this.hit("link");
    DENO_OUTPUT_FS.link(from, to);
  }
  exists(path: string) {
    return DENO_OUTPUT_FS.exists(path);
  }
  mkdir(path: string) {
    DENO_OUTPUT_FS.mkdir(path);
  }
}

Deno.test("output set: a failed rename of the second file puts the first back", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/a.csv`, "old a\n");
    Deno.writeTextFileSync(`${dir}/b.csv`, "old b\n");
    const set = new AtomicOutputSet(new FaultyFs("rename", 1));
    set.open(`${dir}/a.csv`).line("new a");
    set.open(`${dir}/b.csv`).line("new b");
    let message = "";
    try {
      set.commit();
    } catch (e) {
      message = (e as Error).message;
    }
    assertEquals(message, `${dir}/b.csv: cannot replace it: input/output error`);
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), "old a\n");
    assertEquals(Deno.readTextFileSync(`${dir}/b.csv`), "old b\n");
    assertEquals(listDir(dir), ["a.csv", "b.csv"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("output set: a failed rename removes the new files that had no old one, and created folders", () => {
  const dir = Deno.makeTempDirSync();
  try {
    const set = new AtomicOutputSet(new FaultyFs("rename", 1));
    set.open(`${dir}/new/deeper/a.csv`).line("a");
    set.open(`${dir}/new/b.csv`).line("b");
    let threw = false;
    try {
      set.commit();
    } catch {
      threw = true;
    }
    assert(threw);
    assertEquals(listDir(dir), []);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("output set: without hard links the old files are moved aside, and put back on failure", () => {
  const dir = Deno.makeTempDirSync();
  const noLinks: OutputFileSystem = {
    ...DENO_OUTPUT_FS,
    link: () => {
      throw osError("EPERM", "Operation not permitted");
    },
  };
  try {
    Deno.writeTextFileSync(`${dir}/a.csv`, "old a\n");
    Deno.writeTextFileSync(`${dir}/b.csv`, "old b\n");
    const ok = new AtomicOutputSet(noLinks);
    ok.open(`${dir}/a.csv`).line("new a");
    ok.commit();
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), "new a\n");
    assertEquals(listDir(dir), ["a.csv", "b.csv"]);

    let renames = 0;
    const failing: OutputFileSystem = {
      ...noLinks,
      rename: (from, to) => {
        // Moves a.csv aside, renames the new a.csv in, moves b.csv aside, then fails.
        if (++renames === 4) throw osError("EIO", "Input/output error");
        DENO_OUTPUT_FS.rename(from, to);
      },
    };
    const bad = new AtomicOutputSet(failing);
    bad.open(`${dir}/a.csv`).line("newer a");
    bad.open(`${dir}/b.csv`).line("newer b");
    let threw = false;
    try {
      bad.commit();
    } catch {
      threw = true;
    }
    assert(threw);
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), "new a\n");
    assertEquals(Deno.readTextFileSync(`${dir}/b.csv`), "old b\n");
    assertEquals(listDir(dir), ["a.csv", "b.csv"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("output set: commit replaces every file; abort and signals remove temporaries", () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/a.csv`, "old\n");
    const set = new AtomicOutputSet();
    set.open(`${dir}/a.csv`).line("new");
    set.open(`${dir}/b.json`).text("{}\n");
    set.commit();
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), "new\n");
    assertEquals(listDir(dir), ["a.csv", "b.json"]);

    const pending = new AtomicOutputSet();
    pending.open(`${dir}/a.csv`).line("never");
    pending.open(`${dir}/c/d.csv`).line("never");
    assert(listDir(dir).some((n) => n.startsWith("a.csv.tmp-")));
    assertEquals(abortAllOutputs(), 1);
    assertEquals(listDir(dir), ["a.csv", "b.json"]);
    assertEquals(Deno.readTextFileSync(`${dir}/a.csv`), "new\n");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

// --- the property, through the whole command ---------------------------------

const OUTPUTS = ["s.csv", "s_resources.csv", "stats.json"];

Deno.test("property: a writer failing at a random byte or rename leaves the old outputs or all new ones, never a mix", async () => {
  const failure = fc.oneof(
    fc.record({ op: fc.constant<Op>("write"), n: fc.constant(0), byte: fc.nat(4000) }),
    fc.record({
      op: fc.constantFrom<Op>("create", "sync", "link", "rename"),
      n: fc.nat(3),
      byte: fc.constant(0),
    }),
  );
  const dir = Deno.makeTempDirSync({ prefix: "evtsim-atomic-" });
  try {
    await fc.assert(
      fc.asyncProperty(
        arbTrace({ totalNodes: 16, integerTimes: true, maxJobs: 60, actual: "atMostLimit" }),
        failure,
        fc.boolean(),
        fc.boolean(),
        async (trace, f, hadOld, links) => {
          for (const name of listDir(dir)) Deno.removeSync(`${dir}/${name}`);
          Deno.writeTextFileSync(`${dir}/t.csv`, traceToCsv(trace));
          const args = [
            "simulate",
            `${dir}/t.csv`,
            "-n",
            "16",
            "-o",
            `${dir}/s.csv`,
            "--stats_json",
            `${dir}/stats.json`,
          ];
          const clean = await runCli(args);
          assertEquals(clean.code, 0, clean.err.join("\n"));
          const fresh = OUTPUTS.map((n) => Deno.readTextFileSync(`${dir}/${n}`));
          const old = OUTPUTS.map((n, i) => `old ${i} ${n}\n`);
          for (let i = 0; i < OUTPUTS.length; i++) {
            if (hadOld) Deno.writeTextFileSync(`${dir}/${OUTPUTS[i]}`, old[i]);
            else Deno.removeSync(`${dir}/${OUTPUTS[i]}`);
          }
          const fs = new FaultyFs(f.op, f.n, f.byte, links);
          const r = await runCli(args, { fs });
          const names = listDir(dir);
          if (r.code === 0) {
            // A failed hard link is not fatal: the old file is moved aside instead.
            assert(!fs.failed || f.op === "link", "a failure was injected but the run succeeded");
            assertEquals(OUTPUTS.map((n) => Deno.readTextFileSync(`${dir}/${n}`)), fresh);
          } else {
            assert(fs.failed, r.err.join("\n"));
            // One error line (after any reader warning, e.g. zero run times).
            const errors = r.err.filter((l) => l.startsWith("evtsim: "));
            assertEquals(errors.length, 1, r.err.join("\n"));
            assert(errors[0].startsWith(`evtsim: ${dir}/`), errors[0]);
            if (hadOld) {
              assertEquals(OUTPUTS.map((n) => Deno.readTextFileSync(`${dir}/${n}`)), old);
            } else {
              assertEquals(names, ["t.csv"]);
            }
          }
          assertEquals(names.filter((n) => /\.(tmp|bak)-/.test(n)), []);
        },
      ),
      { seed: 18, numRuns: 80 },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("output text: any UTF-16 text, split anywhere across the write buffer, is written as UTF-8 exactly", () => {
  const dir = Deno.makeTempDirSync();
  try {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: "grapheme", maxLength: 40 }),
            fc.string({ maxLength: 3000 }),
            fc.constantFrom("é", "日本", "😀", "a".repeat(70000), "x,".repeat(40000) + "😀"),
          ),
          { maxLength: 60 },
        ),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (pieces, asLine) => {
          const path = `${dir}/out.txt`;
          const set = new AtomicOutputSet();
          const w = set.open(path);
          let expected = "";
          pieces.forEach((p, i) => {
            if (asLine[i]) {
              w.line(p);
              expected += p + "\n";
            } else {
              w.text(p);
              expected += p;
            }
          });
          set.commit();
          const got = Deno.readFileSync(path);
          assertEquals(got, new TextEncoder().encode(expected));
          Deno.removeSync(path);
        },
      ),
      { seed: 20261203, numRuns: 60 },
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
