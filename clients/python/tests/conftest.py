"""Fixtures of the evtsim package's tests: a real `evtsim serve` started from the checkout
(deno run -A cli/main.ts serve --port 0 --grpc_port 0 --record_dir TMP) for the whole test
run and stopped at its end, and `simulate` runs of the same checkout for the reference
schedules. EVTSIM_ROOT names another checkout to run both from."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

ROOT = os.path.abspath(os.environ.get("EVTSIM_ROOT") or os.path.join(HERE, "..", "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "drevt")
# The gRPC stubs come from the proto of the checkout the server runs from.
os.environ.setdefault("EVTSIM_PROTO", os.path.join(ROOT, "api", "service", "dr_evt_service.proto"))
KTH_SWF = "/work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz"


def deno():
    found = shutil.which("deno")
    if found is None:
        pytest.skip("no deno on PATH to run evtsim")
    return found


class Server:
    """A running `evtsim serve`: `http` (its URL), `grpc` (HOST:PORT), `record_dir`."""

    def __init__(self, tmp):
        self.record_dir = os.path.join(tmp, "records")
        self.proc = subprocess.Popen(
            [deno(), "run", "-A", "cli/main.ts", "serve", "--port", "0", "--grpc_port", "0",
             "--spare_workers", "1", "--record_dir", self.record_dir],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "EVTSIM_TOKEN": ""},
        )
        seen = []
        self.http = self.grpc = None
        timer = threading.Timer(120, self.proc.kill)
        timer.start()
        try:
            for line in self.proc.stdout:
                seen.append(line)
                m = re.match(r"^(HTTP|gRPC): (\S+)$", line.strip())
                if m and m.group(1) == "HTTP":
                    self.http = m.group(2)
                elif m:
                    self.grpc = m.group(2)
                if self.http and self.grpc:
                    break
        finally:
            timer.cancel()
        if not self.http:
            self.stop()
            raise RuntimeError(f"evtsim serve printed no address: {''.join(seen)}")
        # Keep reading its output so that it never blocks on a full pipe.
        for stream in (self.proc.stdout, self.proc.stderr):
            threading.Thread(target=stream.read, daemon=True).start()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="session")
def tmp_root():
    d = tempfile.mkdtemp(prefix="evtsim-py-")
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="session")
def server(tmp_root):
    s = Server(tmp_root)
    try:
        yield s
    finally:
        s.stop()


def evtsim(args, cwd=None):
    """Runs the checkout's evtsim command; returns (exit code, stdout, stderr)."""
    r = subprocess.run(
        [deno(), "run", "-A", os.path.join(ROOT, "cli", "main.ts"), *args],
        cwd=cwd or ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    return r.returncode, r.stdout, r.stderr


def simulate_many(runs, tmp):
    """Runs `evtsim simulate` for each argument list in one Deno process."""
    spec = os.path.join(tmp, f"runs-{os.getpid()}-{id(runs)}.json")
    with open(spec, "w") as f:
        json.dump(runs, f)
    r = subprocess.run(
        [deno(), "run", "-A", os.path.join(HERE, "simulate_many.ts"), spec],
        cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL,
    )
    assert r.returncode == 0, r.stderr
    failed = [line for line in r.stdout.splitlines() if line != "0"]
    assert not failed, "\n".join(failed)


# The fixtures the default test run also takes for FCFS and the gym environment (all of them
# under -m slow, as deno task test:python runs); EASY takes every fixture in every run.
QUICK = ("05_multiple_backfills", "21_sustained_high_load", "23_mixed_load",
         "27_early_vs_late_completion", "33_five_simultaneous_events", "rejected_job", "msec")


def quick_or_slow(cases):
    """`cases` as pytest params: those named in QUICK as they are, the others marked slow."""
    return [pytest.param(c, id=c[0], marks=() if any(q in c[0] for q in QUICK)
                         else pytest.mark.slow) for c in cases]


def every(cases):
    """`cases` as pytest params, each named by its fixture."""
    return [pytest.param(c, id=c[0]) for c in cases]


def fixture_cases():
    """(name, input CSV, total nodes, run time mode, msec) of each conformance fixture."""
    out = []
    for name in sorted(os.listdir(FIXTURES)):
        spec = os.path.join(FIXTURES, name, "fixture.json")
        if not os.path.isfile(spec):
            continue
        with open(spec) as f:
            args = json.load(f)["args"]
        opt = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
        out.append((
            name,
            os.path.join(FIXTURES, name, "input.csv"),
            int(opt.get("--total_nodes", "795")),
            opt.get("--run_time_mode", "actual"),
            "--msec_output" in args,
        ))
    return out


def recorded_run_verifies(path):
    """`evtsim replay LOG --verify` re-simulates the recorded session without its client and
    finds every decision as recorded."""
    path = path if os.path.isabs(path) else os.path.join(ROOT, path)
    code, out, err = evtsim(["replay", path, "--verify"])
    assert code == 0, out + err
    assert "verify: every decision matches the recording" in out + err, out + err
