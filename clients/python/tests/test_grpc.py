"""run_trace over gRPC: the same schedules as over HTTP and as simulate, from stubs compiled
at test time (skipped where grpcio and protobuf cannot be imported)."""

import json
import os

import pytest
from conftest import every, fixture_cases, recorded_run_verifies, simulate_many

from evtsim import FCFS, EasyBackfill, EvtsimError, dispatch, run_trace
from evtsim.grpc_client import grpc_available

pytestmark = [
    pytest.mark.grpc,
    pytest.mark.skipif(not grpc_available(), reason="grpcio and protobuf cannot be imported"),
]

CASES = fixture_cases()
POLICIES = {"easy": EasyBackfill, "none": FCFS}


@pytest.fixture(scope="module")
def references(tmp_root):
    runs, paths = [], {}
    for name, path, nodes, mode, msec in CASES:
        for policy in POLICIES:
            out = os.path.join(tmp_root, f"grpc-{name}-{policy}.csv")
            stats = os.path.join(tmp_root, f"grpc-{name}-{policy}.json")
            runs.append(["simulate", path, "-n", str(nodes), "-r", mode, "-b", policy, "-o", out,
                         "--stats_json", stats] + (["--msec_output"] if msec else []))
            paths[(name, policy)] = (out, stats)
    simulate_many(runs, tmp_root)
    refs = {}
    for key, (out, stats) in paths.items():
        with open(out) as f, open(stats) as g:
            refs[key] = (f.read(), json.load(g)["metrics"])
    return refs


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("case", every(CASES))
def test_fixture_schedule_over_grpc(server, references, case, policy):
    name, path, nodes, mode, msec = case
    result = run_trace(server.grpc, path, POLICIES[policy](), total_nodes=nodes,
                       run_time_mode=mode, msec=msec, name=f"grpc-{policy}-{name[:40]}")
    schedule, metrics = references[(name, policy)]
    assert result.schedule_csv() == schedule
    # The server's own figures of the run equal the batch run's.
    assert result.metrics == metrics


def test_grpc_recording_replays_with_verify(server):
    name, path, nodes, mode, _ = next(c for c in CASES if "29_large" in c[0])
    before = set(os.listdir(server.record_dir))
    run_trace(server.grpc, path, EasyBackfill(), total_nodes=nodes, run_time_mode=mode,
              name="grpc-verify")
    new = [f for f in set(os.listdir(server.record_dir)) - before if f.startswith("grpc-verify")]
    assert len(new) == 1, new
    recorded_run_verifies(os.path.join(server.record_dir, new[0]))


def test_an_invalid_decision_over_grpc_is_one_error(server):
    def twice(ctx):
        return [dispatch(j) for j in ctx.waiting[:1]] * 2

    jobs = [{"submit_time": 0, "num_nodes": 6, "time_limit": 100}]
    with pytest.raises(EvtsimError) as refused:
        run_trace(server.grpc, jobs, twice, total_nodes=10)
    assert refused.value.kind == "grpc" and "0" in refused.value.message
    assert "\n" not in refused.value.message


def test_reask_over_grpc_gives_the_round_again(server):
    from evtsim.grpc_client import GrpcSession

    with GrpcSession(server.grpc) as s:
        s.call("init", total_nodes=10, session_name="reask", admission="external",
               external_json='{"onInvalid": "reask"}')
        _, appended = s.call("append_jobs", requests=[
            {"submit_time": 0, "num_nodes": 6, "limit_time": 100},
            {"submit_time": 0, "num_nodes": 6, "limit_time": 100}])
        for job in appended.job_idx:
            assert s.call("submit_job", job_idx=job, submit_time=0)[0] == "submit_job"
        kind, rnd = s.call("advance_to", target_time=0)
        assert kind == "round" and [j["jobId"] for j in rnd["waiting"]] == [0, 1]
        with pytest.raises(EvtsimError) as refused:
            s.decide(rnd["round"], [dispatch(0), dispatch(1)])
        assert refused.value.round["round"] == rnd["round"]
        kind, reply = s.decide(rnd["round"], [dispatch(0)])
        assert kind == "advance_to"
        assert s.call("get_nodes_in_use")[1].nodes_in_use == 6


def test_a_preempting_queue_over_grpc_gives_http_s_statistics(server):
    # run_trace passes queues (HTTP's form) to gRPC's init as queues_json: an urgent job
    # preempts (requeues) the batch job holding the nodes, on both fronts alike.
    queues = [{"name": "batch", "preemptMode": "requeue"}, {"name": "urgent", "priority": 10}]
    jobs = [
        {"submit_time": 0, "num_nodes": 8, "time_limit": 100, "queue": "batch"},
        {"submit_time": 10, "num_nodes": 6, "time_limit": 20, "queue": "urgent"},
    ]
    over = {url: run_trace(url, jobs, EasyBackfill(), total_nodes=10, queues=queues,
                           run_time_mode="limit", name="preempt")
            for url in (server.http, server.grpc)}
    http, grpc = over[server.http].statistics, over[server.grpc].statistics
    assert http["preemptions"] == 1 and http["preemptedWork"] == 80
    assert (grpc["preemptions"], grpc["preempted_work"]) == (1, 80)
    assert grpc["jobs_completed"] == http["jobsCompleted"] == 2
