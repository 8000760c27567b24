// The tests say what they cover: every test file sits in an area folder that
// tests/README.md lists and describes, none at the top of tests/ and none
// named to sort first or last (the run's order is tests/_run_tests.ts's).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

const TESTS = `${ROOT}tests`;

function testFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(`${dir}/${rel}`)) {
    const p = rel === "" ? e.name : `${rel}/${e.name}`;
    if (e.isDirectory && e.name !== "fixtures") out.push(...testFiles(dir, p));
    else if (e.isFile && /_test\.ts$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** The folders tests/README.md's table lists, in its order. */
function listedAreas(): string[] {
  const readme = Deno.readTextFileSync(`${TESTS}/README.md`);
  return [...readme.matchAll(/^\| \[([a-z_]+)\]\(\1\/\)\s+\| \S/gm)].map((m) => m[1]);
}

Deno.test("every test file is in an area folder tests/README.md lists", () => {
  const areas = new Set(listedAreas());
  assert(areas.size >= 10, `tests/README.md lists ${areas.size} areas`);
  const files = testFiles(TESTS);
  assert(files.length > 100, `${files.length} test files`);
  assertEquals(files.filter((f) => !f.includes("/")), [], "test files at the top of tests/");
  assertEquals(files.filter((f) => !areas.has(f.split("/")[0])), [], "outside a listed area");
});

Deno.test("every area tests/README.md lists has tests, and no file is named for its order", () => {
  const files = testFiles(TESTS);
  for (const area of listedAreas()) {
    assert(files.some((f) => f.startsWith(`${area}/`)), `tests/${area}/ has no test file`);
  }
  assertEquals(files.filter((f) => /(^|\/)(zz|aa|\d+)_/.test(f)), []);
});
