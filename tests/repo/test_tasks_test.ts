// The default test task touches nothing outside its temp folder (issue 27):
// the Slurm tests, which may apt-get install Slurm and start its daemons,
// are only in `deno task test:slurm`, and .ci/run runs them only where Slurm
// is already installed, after `deno task check` and before the default task
// (whose closing lines end the CI log).

import { assert, assertEquals } from "../_assert.ts";
import { ROOT } from "../_cli.ts";

const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`));
const tasks = config.tasks;

Deno.test("deno task test leaves tests/slurm/ out; test:slurm runs it and says what it does", () => {
  const test: string = tasks.test.command;
  assert(test.includes("--ignore=tests/slurm/"), test);
  assert(test.includes("--preload tests/_doc_preload.ts"), test);
  const slurm: string = tasks["test:slurm"].command;
  assert(slurm.includes("tests/slurm/"), slurm);
  assert(slurm.startsWith("echo ") && slurm.includes("apt-get"), slurm);
  const here = [...Deno.readDirSync(`${ROOT}tests`)].map((e) => e.name);
  assertEquals(here.filter((n) => /slurm/.test(n) && n !== "slurm"), []);
  assert([...Deno.readDirSync(`${ROOT}tests/slurm`)].some((e) => e.name.endsWith("_test.ts")));
});

/** What .ci/run runs, with `deno` a stub that logs its arguments. */
async function ciRun(withSlurm: boolean): Promise<string[]> {
  const bin = await Deno.makeTempDir({ prefix: "evtsim-ci-" });
  try {
    const stub = (body: string) => `#!/bin/sh\n${body}\n`;
    Deno.writeTextFileSync(`${bin}/deno`, stub(`echo "deno $*" >> "${bin}/log"`), { mode: 0o755 });
    if (withSlurm) Deno.writeTextFileSync(`${bin}/slurmctld`, stub("exit 0"), { mode: 0o755 });
    // Redis and Debian's gRPC for Python count as installed, and apt-get only
    // logs: the test installs nothing.
    Deno.writeTextFileSync(`${bin}/redis-server`, stub("exit 0"), { mode: 0o755 });
    Deno.writeTextFileSync(`${bin}/dpkg`, stub("exit 0"), { mode: 0o755 });
    Deno.writeTextFileSync(`${bin}/apt-get`, stub(`echo "apt-get $*" >> "${bin}/log"`), {
      mode: 0o755,
    });
    const r = await new Deno.Command("bash", {
      args: [`${ROOT}.ci/run`],
      env: { PATH: `${bin}:/usr/bin:/bin` },
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(r.code, 0, new TextDecoder().decode(r.stderr));
    return Deno.readTextFileSync(`${bin}/log`).trim().split("\n");
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
}

Deno.test(".ci/run: the checks first, the service tests, test:slurm only where slurmctld is installed; the default task last", async () => {
  assertEquals(await ciRun(false), [
    "deno --version",
    "deno task check",
    "deno task test:redis",
    "deno task test:python",
    "deno task test",
  ]);
  assertEquals(await ciRun(true), [
    "deno --version",
    "deno task check",
    "deno task test:redis",
    "deno task test:slurm",
    "deno task test:python",
    "deno task test",
  ]);
});

Deno.test("first use prints no build-script warning: protobufjs's postinstall is denied by name", () => {
  // grpc-js's protobufjs has a postinstall (a version check of its own CLI, which
  // evtsim does not use); without a decision Deno warns "Ignored build scripts"
  // on the first `deno task demo`. A fresh DENO_DIR shows it (docs/design.md, Testing).
  const lock = Deno.readTextFileSync(`${ROOT}deno.lock`);
  assert(/"protobufjs@[\d.]+"/.test(lock), "protobufjs is no longer a dependency: drop the entry");
  assertEquals(config.allowScripts, { deny: ["npm:protobufjs"] });
});
