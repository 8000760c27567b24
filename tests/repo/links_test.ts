// Every relative link of the documentation leads somewhere: README.md,
// ARCHITECTURE.md, CONTRIBUTING.md and every docs/*.md (listed, so a page
// added later is checked with no edit here). A link to a file needs the file
// (or folder); a `#anchor`, on the same page or another Markdown file, needs
// a heading whose GitHub anchor it is. Links to http(s) and mailto are not
// followed (the test suite makes no network calls).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

/** The Markdown files whose links are checked, as paths from the root. */
async function documents(): Promise<string[]> {
  const out: string[] = [];
  for (const f of ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"]) {
    if (await Deno.stat(ROOT + f).then(() => true, () => false)) out.push(f);
  }
  for await (const e of Deno.readDir(`${ROOT}docs`)) {
    if (e.isFile && e.name.endsWith(".md")) out.push(`docs/${e.name}`);
  }
  return out.sort();
}

/** The lines of a Markdown text outside fenced code blocks. */
function prose(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      out.push("");
      continue;
    }
    out.push(fenced ? "" : line);
  }
  return out;
}

/**
 * GitHub's anchor of a heading: the rendered text (inline code, emphasis and
 * link syntax gone) lower-cased, every character that is not a letter,
 * digit, space, hyphen or underscore dropped, spaces made hyphens; a repeated
 * anchor gets -1, -2 ... in order.
 */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h === null) continue;
    const text = h[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/[`*]/g, "");
    const base = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a Markdown text's inline links and images, with their line numbers. */
export function linksOf(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  for (const [i, line] of prose(markdown).entries()) {
    // Inline code is text, not a link.
    const text = line.replace(/`[^`]*`/g, "``");
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      out.push({ line: i + 1, target: m[1] });
    }
  }
  return out;
}

/** The broken links of `page` (a path from the root), one line each. */
async function brokenLinks(page: string, root: string): Promise<string[]> {
  const text = await Deno.readTextFile(root + page);
  const folder = page.includes("/") ? page.slice(0, page.lastIndexOf("/") + 1) : "";
  const broken: string[] = [];
  for (const { line, target } of linksOf(text)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const file = path === "" ? page : normalisePath(folder + decodeURI(path));
    let stat: Deno.FileInfo | undefined;
    try {
      stat = await Deno.stat(root + file);
    } catch {
      broken.push(`${page}:${line}: ${target}: no file ${file}`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!stat.isFile || !file.endsWith(".md")) {
      broken.push(`${page}:${line}: ${target}: an anchor into ${file}, not a Markdown file`);
      continue;
    }
    const anchors = anchorsOf(await Deno.readTextFile(root + file));
    if (!anchors.has(anchor)) broken.push(`${page}:${line}: ${target}: no heading #${anchor}`);
  }
  return broken;
}

/** `a/b/../c` as `a/c`; a path leaving the root keeps its `..` (and is then not found). */
function normalisePath(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

Deno.test("links: GitHub's anchors and the link scan, on a sample", () => {
  const md = [
    "# evtsim",
    "## Machines and job demands: `--machine`",
    "## Reading and writing traces: `@evtsim/evtsim/io`",
    "## Porting from DR_EVT",
    "### Options",
    "### Options",
    "## [Linked](x.md) *heading*",
    "```sh",
    "# not a heading; [not](a-link.md)",
    "```",
    'See [a](docs/x.md#y) and `[code](z.md)` and ![fig](figures/a.svg "title").',
  ].join("\n");
  assertEquals([...anchorsOf(md)], [
    "evtsim",
    "machines-and-job-demands---machine",
    "reading-and-writing-traces-evtsimevtsimio",
    "porting-from-dr_evt",
    "options",
    "options-1",
    "linked-heading",
  ]);
  assertEquals(linksOf(md), [
    { line: 7, target: "x.md" },
    { line: 11, target: "docs/x.md#y" },
    { line: 11, target: "figures/a.svg" },
  ]);
  assertEquals(normalisePath("docs/../README.md"), "README.md");
});

Deno.test("links: a broken file link and a broken anchor are both reported", async () => {
  const root = await Deno.makeTempDir({ prefix: "evtsim-links-" });
  try {
    await Deno.mkdir(`${root}/docs`);
    await Deno.writeTextFile(`${root}/docs/a.md`, "# A\n## Part two\n");
    await Deno.writeTextFile(
      `${root}/README.md`,
      "[ok](docs/a.md#part-two) [gone](docs/b.md) [bad](docs/a.md#part-three) [self](#a-heading)\n" +
        "## A heading\n",
    );
    assertEquals(await brokenLinks("README.md", `${root}/`), [
      "README.md:1: docs/b.md: no file docs/b.md",
      "README.md:1: docs/a.md#part-three: no heading #part-three",
    ]);
    await Deno.writeTextFile(`${root}/docs/c.md`, "[up](../README.md#a-heading) [x](a.md#nope)\n");
    assertEquals(await brokenLinks("docs/c.md", `${root}/`), [
      "docs/c.md:1: a.md#nope: no heading #nope",
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("links: every relative link and anchor of the documentation leads somewhere", async () => {
  const docs = await documents();
  let links = 0;
  const broken: string[] = [];
  for (const page of docs) {
    links += linksOf(await Deno.readTextFile(ROOT + page)).length;
    broken.push(...await brokenLinks(page, ROOT));
  }
  assert(links >= 20, `only ${links} links found`);
  assertEquals(broken, []);
});
