// Runs the evtsim Python package's pytest tests (clients/python/tests) with a Python that
// has pytest, each test run in a temp folder of its own (TMPDIR), writing no bytecode or
// pytest cache into the checkout. Used by tests/serve/python_client_test.ts (the HTTP tests) and
// by `deno task test:python` (all of them, gRPC and the KTH runs included):
//
//   deno run -A tests/_python_runner.ts [--all]
//
// --all prefers a Python that can import grpc (Debian's /usr/bin/python3 with
// python3-grpcio), and says so when there is none; with no Python that has pytest it
// prints why and exits 0 (nothing is installed).

const ROOT = new URL("../", import.meta.url).pathname;

/** Whether `python` runs `code` successfully (false when there is no such program). */
async function runs(python: string, code: string): Promise<boolean> {
  try {
    const r = await new Deno.Command(python, {
      args: ["-c", code],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return r.success;
  } catch {
    return false;
  }
}

/** A Python with pytest, and whether it can import grpcio and protobuf (and compile protos). */
export async function findPython(
  preferGrpc: boolean,
): Promise<{ python: string; grpc: boolean } | { reason: string }> {
  const candidates = preferGrpc ? ["/usr/bin/python3", "python3"] : ["python3", "/usr/bin/python3"];
  let withPytest: string | undefined;
  for (const python of candidates) {
    if (!(await runs(python, "import pytest"))) continue;
    withPytest ??= python;
    if (!preferGrpc) break;
    const grpc = await runs(python, "import grpc, google.protobuf") &&
      (await runs(python, "import grpc_tools") || await hasProtoc());
    if (grpc) return { python, grpc: true };
  }
  if (withPytest !== undefined) return { python: withPytest, grpc: false };
  const hasPython = await runs("python3", "pass");
  return { reason: hasPython ? "python3 cannot import pytest" : "no python3 on PATH" };
}

async function hasProtoc(): Promise<boolean> {
  try {
    return (await new Deno.Command("protoc", { args: ["--version"], stdout: "null" }).output())
      .success;
  } catch {
    return false;
  }
}

/** Runs pytest on clients/python/tests with `args`; returns its exit code and output. */
export async function runPytest(
  python: string,
  args: string[],
  piped: boolean,
): Promise<{ code: number; out: string }> {
  const tmp = await Deno.makeTempDir({ prefix: "evtsim-pytest-" });
  try {
    const r = await new Deno.Command(python, {
      args: [
        "-m",
        "pytest",
        "clients/python/tests",
        "-p",
        "no:cacheprovider",
        `--basetemp=${tmp}/basetemp`,
        ...args,
      ],
      cwd: ROOT,
      env: { PYTHONDONTWRITEBYTECODE: "1", TMPDIR: tmp },
      stdin: "null",
      stdout: piped ? "piped" : "inherit",
      stderr: piped ? "piped" : "inherit",
    }).output();
    const text = (b: Uint8Array | null) => b === null ? "" : new TextDecoder().decode(b);
    return { code: r.code, out: piped ? text(r.stdout) + text(r.stderr) : "" };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) {
  const all = Deno.args.includes("--all");
  const found = await findPython(all);
  if ("reason" in found) {
    console.log(`test:python: skipped (${found.reason}); nothing was installed`);
    Deno.exit(0);
  }
  if (all && !found.grpc) {
    console.log(
      `test:python: the gRPC tests are skipped: no Python with pytest can import grpc and ` +
        `google.protobuf and compile a proto (Debian: apt-get install python3-grpcio ` +
        `python3-protobuf python3-pytest protobuf-compiler); running ${found.python}`,
    );
  }
  const args = all ? ["-q"] : ["-q", "-m", "not slow and not grpc"];
  const { code } = await runPytest(found.python, args, false);
  Deno.exit(code);
}
