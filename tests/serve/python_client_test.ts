// The Python package (clients/python) against a real `evtsim serve`: its HTTP pytest tests
// (run_trace with the Python FCFS and EASY byte for byte `simulate -b none` / `-b easy` on
// the conformance fixtures, recordings that replay with --verify, refused decisions, the
// gym-style environment). Runs where python3 can import pytest; otherwise it is reported as
// ignored, its name saying why. Nothing is installed. The gRPC and KTH tests are
// `deno task test:python`'s.

import { assert } from "../_assert.ts";
import { findPython, runPytest } from "../_python_runner.ts";

const found = await findPython(false);

Deno.test({
  name: "reason" in found
    ? `python: the evtsim package's pytest tests (skipped: ${found.reason})`
    : "python: the evtsim package's HTTP pytest tests pass against a real evtsim serve",
  ignore: "reason" in found,
  fn: async () => {
    if ("reason" in found) return;
    const r = await runPytest(found.python, ["-q", "-m", "not slow and not grpc"], true);
    assert(r.code === 0, `pytest failed (exit ${r.code}):\n${r.out}`);
    assert(/\d+ passed/.test(r.out) && !/\d+ failed/.test(r.out), r.out);
  },
});
