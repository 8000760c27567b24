// The mutation catalogue (mutation/catalogue.ts) stays applicable: every
// mutation's text occurs exactly once in its file, its replacement differs,
// and its tests exist; names are unique. (`deno task mutate` runs them.)

import { MUTATIONS } from "../../mutation/catalogue.ts";
import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

Deno.test("mutation catalogue: every mutation applies to today's code and names existing tests", () => {
  assertEquals(new Set(MUTATIONS.map((m) => m.name)).size, MUTATIONS.length);
  for (const m of MUTATIONS) {
    const text = Deno.readTextFileSync(`${ROOT}${m.file}`);
    const at = text.indexOf(m.find);
    assert(at >= 0, `${m.name}: its text is not in ${m.file}`);
    assertEquals(text.indexOf(m.find, at + 1), -1, `${m.name}: its text occurs twice in ${m.file}`);
    assert(m.replace !== m.find, m.name);
    assert(m.tests.length > 0, m.name);
    for (const t of m.tests) assert(Deno.statSync(`${ROOT}${t}`).isFile, `${m.name}: ${t}`);
  }
});
