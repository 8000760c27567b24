"""The KTH SP2 log (28k jobs, 100 nodes) through a Python EASY and FCFS over HTTP and gRPC:
byte for byte `evtsim simulate -b easy` / `-b none`, and the recording verifies. Slow (a
minute or more): `deno task test:python` runs it, the default test run does not."""

import os
import subprocess

import pytest
from conftest import KTH_SWF, ROOT, deno, recorded_run_verifies, simulate_many

from evtsim import FCFS, EasyBackfill, run_trace
from evtsim.grpc_client import grpc_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.isfile(KTH_SWF), reason=f"no KTH log at {KTH_SWF}"),
]


@pytest.fixture(scope="module")
def kth(tmp_root):
    """The KTH log as bench/swf_to_csv.ts converts it, and simulate's schedules of it."""
    trace = os.path.join(tmp_root, "kth.csv")
    r = subprocess.run([deno(), "run", "-A", os.path.join(ROOT, "bench", "swf_to_csv.ts"),
                        KTH_SWF, "--out", trace], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    refs = {}
    runs = []
    for policy in ("easy", "none"):
        out = os.path.join(tmp_root, f"kth-{policy}.csv")
        runs.append(["simulate", trace, "-n", "100", "-b", policy, "-o", out])
        refs[policy] = out
    simulate_many(runs, tmp_root)
    texts = {}
    for policy, out in refs.items():
        with open(out) as f:
            texts[policy] = f.read()
    return trace, texts


@pytest.mark.parametrize("policy,scheduler", [("easy", EasyBackfill), ("none", FCFS)])
def test_kth_over_http(server, kth, policy, scheduler):
    trace, refs = kth
    result = run_trace(server.http, trace, scheduler(), total_nodes=100, name=f"kth-{policy}")
    assert result.schedule_csv() == refs[policy]
    if policy == "easy":
        recorded_run_verifies(result.recording)


@pytest.mark.grpc
@pytest.mark.skipif(not grpc_available(), reason="grpcio and protobuf cannot be imported")
def test_kth_easy_over_grpc(server, kth):
    trace, refs = kth
    result = run_trace(server.grpc, trace, EasyBackfill(), total_nodes=100, name="kth-grpc")
    assert result.schedule_csv() == refs["easy"]
