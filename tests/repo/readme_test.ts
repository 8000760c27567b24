// README.md and every page of docs/ tell the truth: every command and
// program they show with an output is run, and the output must be what the
// page prints.
//
// The convention (docs/design.md says it too, under "Testing"):
// - a ```sh block followed by a ```text block (only blank lines between) is
//   a command and its output. The block runs in bash, `evtsim` being the
//   command of this checkout (a script on PATH that execs `deno run ...
//   cli/main.ts`, as `deno install` makes), stderr merged into stdout as a
//   terminal shows it;
// - a ```ts block is a program that checks its own results (it throws on a
//   wrong one); when a ```text block follows it, that is its exact stdout;
// - a ```sh block with no output block is only shown, and must say so with a
//   `<!-- not run: why -->` comment right before it;
// - a block in any other language (```python ...) is only shown, and needs
//   the same `<!-- not run: why -->` comment; a ```text block anywhere else,
//   or one of those without its comment, fails.
//
// The pages are README.md and every docs/*.md, found by listing docs/ (a page
// added later is run with no edit here). Each page runs on its own, its
// blocks in order, in a scratch folder of its own holding copies of
// examples/, tests/fixtures/swf/ and the gRPC .proto, so a page's relative
// paths work as in a fresh clone, a block can use the files an earlier block
// of the SAME page wrote (a page repeats the set-up it needs), and nothing is
// written into the repository. Pages run two at a time. Only wall-clock
// figures are normalised (the statistics block's "Wall clock time" and "Time
// reading input", the sim_s column of a compare table), the clone's folder
// (`<clone>`) and leading or trailing blank lines, which a Markdown block
// cannot keep; everything else must match byte for byte. Set
// EVTSIM_UPDATE_README=1 to write the outputs of this run into the pages
// instead of comparing (then review the diff).
//
// The ts blocks import the package by name ("@evtsim/evtsim", "/io",
// "/testing"), as a user copying them would; `--config deno.json` makes the
// name resolve to this checkout.

import { assert, assertEquals } from "../_assert.ts";
import { recordProcessRun, ROOT } from "../_cli.ts";

const README = `${ROOT}README.md`;
const UPDATE = Deno.env.get("EVTSIM_UPDATE_README") === "1";

/** One fenced block of a page. */
interface Block {
  /** The info string (`ts`, `sh`, `text` ...). */
  readonly lang: string;
  /** Line number of the opening fence (1-based). */
  readonly line: number;
  /** Line number of the closing fence. */
  readonly end: number;
  /** The block's text, each line ending in a newline. */
  readonly body: string;
  /** The HTML comment on the last non-blank line before the fence, if any. */
  readonly comment?: string;
  /** Only blank lines separate it from the block before. */
  readonly followsBlock: boolean;
}

/** The fenced blocks of a Markdown text (`page` names it in errors). */
function blocksOf(markdown: string, page = "README.md"): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  let lastEnd = -2;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (open === null) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== "```") end++;
    if (end === lines.length) throw new Error(`${page}:${i + 1}: unclosed code block`);
    let before = i - 1;
    while (before >= 0 && lines[before].trim() === "") before--;
    const comment = before >= 0 ? /^<!--(.*)-->\s*$/.exec(lines[before])?.[1].trim() : undefined;
    const body = lines.slice(i + 1, end).map((l) => l + "\n").join("");
    blocks.push({
      lang: open[1],
      line: i + 1,
      end: end + 1,
      body,
      comment,
      followsBlock: before === lastEnd,
    });
    lastEnd = end;
    i = end;
  }
  return blocks;
}

/** A block to run, with the output block that must match it (if any). */
interface Runnable {
  readonly code: Block;
  readonly output?: Block;
}

/** Pairs code blocks with their outputs; throws on a block that breaks the convention. */
function runnables(blocks: readonly Block[], page = "README.md"): Runnable[] {
  const out: Runnable[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    const next = blocks[i + 1];
    const output = next !== undefined && next.lang === "text" && next.followsBlock
      ? next
      : undefined;
    if (b.lang === "ts" || b.lang === "sh") {
      if (b.lang === "sh" && output === undefined) {
        if (!(b.comment ?? "").startsWith("not run:")) {
          throw new Error(
            `${page}:${b.line}: a sh block without an output block needs <!-- not run: why -->`,
          );
        }
        continue;
      }
      out.push({ code: b, output });
      if (output !== undefined) i++;
    } else if (b.lang === "text") {
      throw new Error(`${page}:${b.line}: a text block must follow the sh or ts block it shows`);
    } else if ((b.comment ?? "").startsWith("not run:")) {
      // Code in another language (Python, YAML ...) is only shown, and says why.
      continue;
    } else {
      throw new Error(
        `${page}:${b.line}: a '${b.lang}' block is only shown: it needs <!-- not run: why -->`,
      );
    }
  }
  return out;
}

/**
 * Replaces what varies from run to run (wall-clock seconds, the scratch
 * folder) and drops leading and trailing blank lines, which a Markdown code
 * block does not keep (deno fmt removes them).
 */
function normalise(text: string, folder?: string): string {
  let t = text.replace(/^\n+/, "").replace(/\n*$/, "\n")
    .replace(/^(Wall clock time to run simulation: )\S+( \(sec\))$/gm, "$1<seconds>$2")
    .replace(/^(\[evtsim\] Time reading input: )\S+( \(sec, included below\))$/gm, "$1<seconds>$2")
    // The last column (sim_s) of an `evtsim compare` table row (a machine
    // run's rows have a utilization_<resource> column per resource more).
    .replace(/^((?:\S+ +){9,})\d+\.\d\d$/gm, "$1<seconds>");
  if (folder !== undefined) t = t.replaceAll(folder, "<tmp>");
  // The clone's own folder (a fuzz report's command runs the clone's task).
  return t.replaceAll(ROOT.replace(/\/$/, ""), "<clone>");
}

Deno.test("README: the block convention is parsed as documented", () => {
  const md = [
    "# t",
    "```sh",
    "evtsim --version",
    "```",
    "",
    "```text",
    "evtsim 0.1.0",
    "```",
    "<!-- not run: needs a network -->",
    "```sh",
    "deno install",
    "```",
    "```ts",
    'import { Simulation } from "@evtsim/evtsim";',
    "```",
    "",
  ].join("\n");
  const blocks = blocksOf(md);
  assertEquals(blocks.map((b) => [b.lang, b.line, b.followsBlock]), [
    ["sh", 2, false],
    ["text", 6, true],
    ["sh", 10, false],
    ["ts", 13, true],
  ]);
  const r = runnables(blocks);
  assertEquals(r.map((x) => [x.code.line, x.output?.line]), [[2, 6], [13, undefined]]);
  assert(
    /needs <!-- not run/.test(String(catchError(() => runnables(blocksOf("```sh\nx\n```\n"))))),
  );
  assert(
    /must follow/.test(String(catchError(() => runnables(blocksOf("text\n\n```text\nx\n```\n"))))),
  );
  assert(
    /is only shown: it needs <!-- not run/.test(
      String(catchError(() => runnables(blocksOf("```\nx\n```\n")))),
    ),
  );
  assert(/python/.test(String(catchError(() => runnables(blocksOf("```python\nx\n```\n"))))));
  assertEquals(runnables(blocksOf("<!-- not run: shown -->\n\n```python\nx\n```\n")), []);
  assertEquals(
    normalise(
      "Wall clock time to run simulation: 0.19 (sec)\n[evtsim] Time reading input: 1e-3 (sec, included below)\nAverage wait time: 1 sec\n",
    ),
    "Wall clock time to run simulation: <seconds> (sec)\n[evtsim] Time reading input: <seconds> (sec, included below)\nAverage wait time: 1 sec\n",
  );
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

Deno.test("README: starts with the demo and test commands (.ci/run runs the second)", async () => {
  const lines = (await Deno.readTextFile(README)).split("\n");
  assert(lines[2].startsWith("    npx -y deno@2 task demo "), lines[2]);
  assert(lines[3].startsWith("    npx -y deno@2 task test "), lines[3]);
});

/** README.md and docs/*.md (listed, so a page added later is run), as paths from the root. */
async function pages(): Promise<string[]> {
  const docs: string[] = [];
  for await (const e of Deno.readDir(`${ROOT}docs`)) {
    if (e.isFile && e.name.endsWith(".md")) docs.push(`docs/${e.name}`);
  }
  return ["README.md", ...docs.sort()];
}

Deno.test("docs: ts blocks import the package by name, never a relative path", async () => {
  let count = 0;
  let byName = false;
  for (const page of await pages()) {
    const ts = blocksOf(await Deno.readTextFile(ROOT + page), page).filter((b) => b.lang === "ts");
    count += ts.length;
    for (const b of ts) {
      for (const m of b.body.matchAll(/\bfrom\s+["']([^"']+)["']/g)) {
        assert(!m[1].startsWith("."), `${page}:${b.line}: imports ${m[1]}`);
      }
      byName ||= b.body.includes('from "@evtsim/evtsim"');
    }
  }
  assert(count >= 5, `only ${count} ts blocks`);
  assert(byName, "no block imports the package");
});

/** What running one page found: its failures (empty when it tells the truth). */
interface PageRun {
  readonly failures: string[];
  readonly blocks: number;
  readonly outputs: number;
}

/**
 * The page runs: two at a time (the machine has 2 cores and a page is mostly
 * one process after another). A page whose test has begun goes first; while
 * a slot is free the pages after it start ahead, at most AHEAD of them before
 * their tests begin, so a run filtered to one page runs at most AHEAD more.
 */
const SLOTS = 2;
const AHEAD = 3;
const runs = new Map<string, Promise<PageRun>>();
const asked = new Set<string>();
const waiting = new Map<string, (r: PageRun) => void>();
let running = 0;

function pageRun(page: string, all: readonly string[]): Promise<PageRun> {
  asked.add(page);
  for (const p of all) {
    if (!runs.has(p)) runs.set(p, new Promise((resolve) => waiting.set(p, resolve)));
  }
  pump(all);
  return runs.get(page)!;
}

function pump(all: readonly string[]): void {
  while (running < SLOTS) {
    const unstarted = all.filter((p) => waiting.has(p));
    const ahead = all.filter((p) => !waiting.has(p) && !asked.has(p)).length;
    const next = unstarted.find((p) => asked.has(p)) ??
      (ahead < AHEAD ? unstarted[0] : undefined);
    if (next === undefined) return;
    const resolve = waiting.get(next)!;
    waiting.delete(next);
    running++;
    runPage(next).catch((e): PageRun => ({ failures: [String(e)], blocks: 0, outputs: 0 })).then(
      (r) => {
        running--;
        resolve(r);
        pump(all);
      },
    );
  }
}

const ALL_PAGES = await pages();
for (const page of ALL_PAGES) {
  Deno.test({
    name: `docs: every shown output of ${page} is what its command or program prints`,
    // A page's run may have started before its test (pageRun).
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      const r = await pageRun(page, ALL_PAGES);
      if (page === "README.md") assert(r.outputs >= 3, "too few output blocks in README.md");
      assertEquals(r.failures, [], `${page}: ${r.failures.length} of ${r.blocks} blocks failed`);
    },
  });
}

async function runPage(page: string): Promise<PageRun> {
  const text = await Deno.readTextFile(ROOT + page);
  const failures: string[] = [];
  let pairs: Runnable[];
  try {
    pairs = runnables(blocksOf(text, page), page);
  } catch (e) {
    return { failures: [String(e)], blocks: 0, outputs: 0 };
  }
  const folder = await scratchFolder();
  const updates: { block: Block; text: string }[] = [];
  try {
    const programs = pairs.filter((p) => p.code.lang === "ts");
    const files = new Map<Runnable, string>();
    for (const [n, p] of programs.entries()) {
      const file = `${folder}/page_block_${n + 1}.ts`;
      await Deno.writeTextFile(file, p.code.body);
      files.set(p, file);
    }
    // One type-check of every page's programs, shared (it is much faster than
    // a check per page or `run --check` per block).
    if (files.size > 0) {
      const check = await typeCheck();
      if (check !== "") failures.push(`deno check of the pages' ts blocks failed:\n${check}`);
    }
    for (const p of pairs) {
      const where = `${page}:${p.code.line}`;
      const r = p.code.lang === "ts"
        ? await run(tsArgs(files.get(p)!, folder), folder)
        : await run(["-c", shellScript(p.code.body)], folder, "bash");
      // A sh block's stderr is in its stdout; the stack-frame scan sees both.
      try {
        recordProcessRun(["README", where], p.code.lang === "sh" ? r.out : r.err);
      } catch (e) {
        // A stack trace: reported with this page, not as an error of a later test.
        failures.push(String(e));
        continue;
      }
      if (p.code.lang === "ts" && r.code !== 0) {
        failures.push(`${where}: exited with ${r.code}:\n${r.out}${r.err}`);
        continue;
      }
      if (p.output === undefined) continue;
      const shown = r.out.endsWith("\n") || r.out === "" ? r.out : r.out + "\n";
      if (UPDATE) {
        updates.push({
          block: p.output,
          text: shown.replaceAll(folder, "<tmp>").replaceAll(ROOT.replace(/\/$/, ""), "<clone>"),
        });
        continue;
      }
      const got = normalise(shown, folder);
      const want = normalise(p.output.body);
      if (got !== want) failures.push(`${where}: output differs:\n${lineDiff(want, got)}`);
    }
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
  if (UPDATE && updates.length > 0) {
    const lines = text.split("\n");
    for (const u of updates.reverse()) {
      const body = u.text.endsWith("\n") ? u.text.slice(0, -1) : u.text;
      lines.splice(u.block.line, u.block.end - u.block.line - 1, ...body.split("\n"));
    }
    await Deno.writeTextFile(ROOT + page, lines.join("\n"));
  }
  return { failures, blocks: pairs.length, outputs: pairs.filter((p) => p.output).length };
}

/** The type-check of every page's ts blocks ("" when they pass), run once. */
let checked: Promise<string> | undefined;
function typeCheck(): Promise<string> {
  checked ??= (async () => {
    const folder = await Deno.makeTempDir({ prefix: "evtsim-docs-check-" });
    try {
      const files: string[] = [];
      for (const page of await pages()) {
        const text = await Deno.readTextFile(ROOT + page);
        for (const [n, b] of blocksOf(text, page).filter((x) => x.lang === "ts").entries()) {
          const file = `${folder}/${page.replaceAll("/", "_").replace(".md", "")}_${n + 1}.ts`;
          await Deno.writeTextFile(file, b.body);
          files.push(file);
        }
      }
      const r = await run(["check", "--quiet", "--config", `${ROOT}deno.json`, ...files], folder);
      return r.code === 0 ? "" : `${r.out}${r.err}`;
    } finally {
      await Deno.remove(folder, { recursive: true });
    }
  })();
  return checked;
}

/** The lines where two texts differ (at most 20), `-` shown, `+` printed. */
function lineDiff(want: string, got: string): string {
  const w = want.split("\n");
  const g = got.split("\n");
  const out: string[] = [];
  for (let i = 0; i < Math.max(w.length, g.length) && out.length < 20; i++) {
    if (w[i] === g[i]) continue;
    if (w[i] !== undefined) out.push(`  line ${i + 1} - ${w[i]}`);
    if (g[i] !== undefined) out.push(`  line ${i + 1} + ${g[i]}`);
  }
  return out.join("\n");
}

/** A scratch folder with the inputs the pages' commands use. */
async function scratchFolder(): Promise<string> {
  const folder = await Deno.makeTempDir({ prefix: "evtsim-docs-" });
  await copyTree(`${ROOT}examples`, `${folder}/examples`, (name) => name !== "out");
  await copyTree(`${ROOT}tests/fixtures/swf`, `${folder}/tests/fixtures/swf`, () => true);
  await Deno.mkdir(`${folder}/api/service`, { recursive: true });
  await Deno.copyFile(
    `${ROOT}api/service/dr_evt_service.proto`,
    `${folder}/api/service/dr_evt_service.proto`,
  );
  // The clone beside the user's project, as "Using the library from a clone"
  // has it (`../evtsim` from a project folder).
  await Deno.symlink(ROOT.replace(/\/$/, ""), `${folder}/evtsim`);
  // `evtsim` as an installed command is: a script that execs deno (so `$!` of
  // `evtsim serve &` is the server itself). Hidden, outside what blocks list.
  await Deno.mkdir(`${folder}/.bin`);
  await Deno.writeTextFile(
    `${folder}/.bin/evtsim`,
    '#!/bin/sh\nexec "$EVTSIM_DENO" run --quiet --allow-read --allow-write --allow-env ' +
      '--allow-sys --allow-net --allow-run --config "$EVTSIM_ROOT/deno.json" "$EVTSIM_ROOT/cli/main.ts" "$@"\n',
    { mode: 0o755 },
  );
  return await Deno.realPath(folder);
}

async function copyTree(from: string, to: string, keep: (name: string) => boolean) {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (!keep(e.name)) continue;
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`, keep);
    else if (e.isFile) await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}

/** A sh block as a bash script: stderr into stdout, `evtsim` = this checkout's command. */
function shellScript(body: string): string {
  return ["exec 2>&1", 'PATH="$EVTSIM_BIN:$PATH"', body].join("\n");
}

/** How a ts block runs: reading and writing only its scratch folder. */
function tsArgs(file: string, folder: string): string[] {
  return [
    "run",
    "--no-check",
    "--quiet",
    "--config",
    `${ROOT}deno.json`,
    `--allow-read=${folder}`,
    `--allow-write=${folder}`,
    // The yaml package's debug switches (io/_yaml.ts YAML_ENV): the library's
    // YAML readers need them, as the README says.
    "--allow-env=LOG_TOKENS,LOG_STREAM",
    file,
  ];
}

/** The longest one block may run. */
const BLOCK_SECONDS = 300;

async function run(
  args: string[],
  cwd: string,
  command = Deno.execPath(),
): Promise<{ code: number; out: string; err: string }> {
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    NO_COLOR: "1",
    LC_ALL: "C",
    TMPDIR: cwd,
    EVTSIM_DENO: Deno.execPath(),
    EVTSIM_ROOT: ROOT.replace(/\/$/, ""),
    EVTSIM_BIN: `${cwd}/.bin`,
  };
  delete env.INIT_CWD;
  const r = await new Deno.Command(command, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // A block that waits for ever (a server that never started, say) fails
    // the page instead of holding up the whole run.
    signal: AbortSignal.timeout(BLOCK_SECONDS * 1000),
  }).output();
  const d = new TextDecoder();
  const stopped = r.signal !== null
    ? `\n[docs test] stopped by ${r.signal} after ${BLOCK_SECONDS} s: the block did not end`
    : "";
  return { code: r.code, out: d.decode(r.stdout), err: d.decode(r.stderr) + stopped };
}
