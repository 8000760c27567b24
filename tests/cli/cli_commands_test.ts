// The command table (cli/commands.ts) is the one list of commands: every row
// has a help, is dispatched to the command it names, is listed by `evtsim
// help` and guessed by "did you mean"; the listing has no command the table
// lacks.

import { assert, assertEquals } from "../_assert.ts";
import { runCli } from "../_cli.ts";
import { COMMAND_NAMES, COMMAND_TABLE, listingLines } from "../../cli/commands.ts";

Deno.test("every command in the table has a help, the same as 'evtsim NAME --help'", async () => {
  for (const { name } of COMMAND_TABLE) {
    const help = await runCli(["help", name]);
    assertEquals(help.code, 0, name);
    assertEquals(help.err, [], name);
    assert(help.out[0].startsWith(`usage: evtsim ${name} `), `${name}: ${help.out[0]}`);
    // Dispatched: the command itself answers --help with that text.
    const own = await runCli([name, "--help"]);
    assertEquals(own.code, 0, name);
    assertEquals(own.out, help.out, name);
  }
});

Deno.test("every command's help lists each of its option rows from the table", async () => {
  let tables = 0;
  for (const command of COMMAND_TABLE) {
    if (command.options === undefined) continue;
    tables++;
    const help = await runCli(["help", command.name]);
    const text = help.out.join("\n");
    for (const o of await command.options()) {
      const names = (o.short !== undefined ? `-${o.short}, ` : "    ") + `--${o.name}`;
      assert(text.includes(`  ${names}`), `evtsim help ${command.name} lacks ${names}`);
    }
  }
  assertEquals(tables, COMMAND_TABLE.length - 1, "every command but topo gives its rows");
});

Deno.test("'evtsim help' lists every form of every command in the table, and nothing else", async () => {
  const r = await runCli(["help"]);
  assertEquals(r.code, 0);
  const text = r.out.join("\n").split("\n");
  const from = text.indexOf("commands:") + 1;
  const to = text.indexOf("", from);
  const listed = text.slice(from, to);
  const expected = [
    ...COMMAND_TABLE.flatMap((c) => c.forms.flatMap(listingLines)),
    "  help [COMMAND]             show this help, or a command's help",
  ];
  assertEquals(listed, expected);
  for (const { name, forms } of COMMAND_TABLE) {
    for (const form of forms) assert(form.usage.startsWith(`${name} `) || form.usage === name);
  }
  // Each synopsis's first word is a command of the table (or help).
  for (const line of listed.filter((l) => /^ {2}\S/.test(l))) {
    const word = line.trim().split(" ")[0];
    assert([...COMMAND_NAMES, "help"].includes(word), line);
  }
});

Deno.test("a mistyped command or help topic is guessed from the table", async () => {
  for (const name of COMMAND_NAMES) {
    // A slip of one letter at the end (`simulat`, `sweep-cel`).
    const typo = name.slice(0, -1);
    const run = await runCli([typo]);
    assertEquals(run.code, 1);
    assert(run.err[0].includes(`(expected: ${COMMAND_NAMES.join(", ")})`), run.err[0]);
    const help = await runCli(["help", typo]);
    assertEquals(help.code, 1);
    assert(help.err[0].includes(`(commands: ${COMMAND_NAMES.join(", ")})`), help.err[0]);
    if (typo.length >= 3) {
      assert(run.err[0].includes("did you mean"), run.err[0]);
      assert(help.err[0].includes("did you mean"), help.err[0]);
    }
  }
});
