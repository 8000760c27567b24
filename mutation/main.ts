// `deno task mutate`: mutation testing with a hand-made catalogue
// (mutation/catalogue.ts). The checkout's tracked files are copied into a
// scratch folder once; each mutation is applied there, its tests run, and the
// file restored. A mutation is killed when its tests fail, survived when they
// pass. The tests are first run unmutated: a catalogue whose tests fail as
// they are, or whose text no longer occurs exactly once, is an error, not a
// kill. Prints one line per mutation and the kill rate; exits 1 if any
// survived.
//
//   deno task mutate [--only NAME] [--list]

import { parseScriptArgs } from "../bench/_args.ts";
import { type Mutation, MUTATIONS } from "./catalogue.ts";

const ROOT = new URL("../", import.meta.url).pathname;

/** What happened to one mutation. */
export type Outcome = "killed" | "survived";

/** Runs the given test files in `dir`; true when they all pass. */
async function testsPass(dir: string, tests: readonly string[]): Promise<boolean> {
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", "--quiet", "--preload", "tests/_doc_preload.ts", ...tests],
    cwd: dir,
    stdout: "null",
    stderr: "null",
  }).output();
  return r.success;
}

/** The checkout's tracked files, copied into a new scratch folder. */
async function scratchCopy(): Promise<string> {
  const ls = await new Deno.Command("git", { args: ["ls-files", "-z"], cwd: ROOT }).output();
  if (!ls.success) throw new Error("git ls-files failed: run it in a git checkout");
  const dir = await Deno.makeTempDir({ prefix: "evtsim-mutate-" });
  for (const f of new TextDecoder().decode(ls.stdout).split("\0").filter((x) => x !== "")) {
    const to = `${dir}/${f}`;
    await Deno.mkdir(to.slice(0, to.lastIndexOf("/")), { recursive: true });
    await Deno.copyFile(`${ROOT}${f}`, to).catch(() => {}); // a deleted, not yet committed file
  }
  return dir;
}

/** Applies `m` in `dir`, runs its tests, restores the file. */
export async function runMutation(dir: string, m: Mutation): Promise<Outcome> {
  const path = `${dir}/${m.file}`;
  const original = await Deno.readTextFile(path);
  const at = original.indexOf(m.find);
  if (at < 0 || original.indexOf(m.find, at + 1) >= 0) {
    throw new Error(
      `${m.name}: its text must occur exactly once in ${m.file} (update the catalogue)`,
    );
  }
  await Deno.writeTextFile(
    path,
    original.slice(0, at) + m.replace + original.slice(at + m.find.length),
  );
  try {
    return (await testsPass(dir, m.tests)) ? "survived" : "killed";
  } finally {
    await Deno.writeTextFile(path, original);
  }
}

async function main(args: string[]): Promise<number> {
  const { values } = parseScriptArgs(args, {
    only: { type: "string" },
    list: { type: "boolean" },
  });
  if (values.list === true) {
    for (const m of MUTATIONS) console.log(`${m.name}: ${m.breaks}`);
    return 0;
  }
  const chosen = values.only === undefined
    ? MUTATIONS
    : MUTATIONS.filter((m) => m.name === values.only);
  if (chosen.length === 0) {
    console.error(`mutate: unknown mutation '${values.only}' (see --list)`);
    return 2;
  }
  const dir = await scratchCopy();
  try {
    const tests = [...new Set(chosen.flatMap((m) => m.tests))];
    if (!(await testsPass(dir, tests))) {
      console.error(`mutate: the catalogue's tests fail without a mutation: ${tests.join(" ")}`);
      return 2;
    }
    let killed = 0;
    for (const m of chosen) {
      const outcome = await runMutation(dir, m);
      if (outcome === "killed") killed++;
      console.log(`${outcome.padEnd(8)} ${m.name}: ${m.breaks}`);
    }
    const rate = (100 * killed / chosen.length).toFixed(0);
    console.log(`mutate: ${killed} of ${chosen.length} mutations killed (${rate}%)`);
    return killed === chosen.length ? 0 : 1;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
