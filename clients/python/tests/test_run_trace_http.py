"""run_trace over HTTP: the Python FCFS and EASY give `evtsim simulate -b none` and `-b easy`'s
schedule and resource timeline byte for byte on every conformance fixture, and the session's
recording replays with --verify; refused decisions are one clear EvtsimError."""

import os

import pytest
from conftest import (
    ROOT,
    every,
    fixture_cases,
    quick_or_slow,
    recorded_run_verifies,
    simulate_many,
)

from evtsim import (
    FCFS,
    Client,
    EasyBackfill,
    EvtsimError,
    Scheduler,
    dispatch,
    read_trace,
    run_trace,
)

CASES = fixture_cases()
POLICIES = {"easy": EasyBackfill, "none": FCFS}


@pytest.fixture(scope="module")
def references(tmp_root):
    """simulate's schedule and resource CSV of each fixture under easy and none."""
    runs, paths = [], {}
    for name, path, nodes, mode, msec in CASES:
        for policy in POLICIES:
            out = os.path.join(tmp_root, f"{name}-{policy}.csv")
            res = os.path.join(tmp_root, f"{name}-{policy}-res.csv")
            runs.append(["simulate", path, "-n", str(nodes), "-r", mode, "-b", policy, "-o", out,
                         "-R", res] + (["--msec_output"] if msec else []))
            paths[(name, policy)] = (out, res)
    simulate_many(runs, tmp_root)

    def read(p):
        with open(p) as f:
            return f.read()

    return {k: (read(a), read(b)) for k, (a, b) in paths.items()}


@pytest.mark.parametrize("case", every(CASES))
def test_easy_fixture_schedule_is_simulates(server, references, case):
    fixture_schedule_is_simulates(server, references, case, "easy")


@pytest.mark.parametrize("case", quick_or_slow(CASES))
def test_fcfs_fixture_schedule_is_simulates(server, references, case):
    fixture_schedule_is_simulates(server, references, case, "none")


def fixture_schedule_is_simulates(server, references, case, policy):
    name, path, nodes, mode, msec = case
    result = run_trace(server.http, path, POLICIES[policy](), total_nodes=nodes,
                       run_time_mode=mode, msec=msec, name=f"{policy}-{name[:40]}")
    schedule, resources = references[(name, policy)]
    assert result.schedule_csv() == schedule
    assert result.resource_csv() == resources
    assert result.rounds > 0


def test_recording_replays_with_verify(server):
    name, path, nodes, mode, msec = next(c for c in CASES if "29_large" in c[0])
    result = run_trace(server.http, path, EasyBackfill(), total_nodes=nodes, run_time_mode=mode)
    assert result.recording, "the server records (--record_dir): the reply names the file"
    recorded_run_verifies(result.recording)


def test_jobs_as_dicts_and_a_callable_scheduler(server):
    jobs = [
        {"submit_time": 0, "num_nodes": 6, "time_limit": 100},
        {"submit_time": 0, "num_nodes": 8, "time_limit": 10},
        {"submit_time": 0, "num_nodes": 4, "time_limit": 10},
    ]
    seen = []

    def smallest_first(ctx):
        seen.append((ctx.time, ctx.free, [j.job_id for j in ctx.waiting]))
        out, free = [], ctx.free
        for job in sorted(ctx.waiting, key=lambda j: (j.num_nodes, j.job_id)):
            if job.num_nodes <= free:
                out.append(dispatch(job))
                free -= job.num_nodes
        return out

    result = run_trace(server.http, jobs, smallest_first, total_nodes=10)
    begins = {r["jobId"]: r["beginTime"] for r in result.jobs}
    assert begins == {2: 0, 0: 0, 1: 100}
    assert seen[0] == (0, 10, [0, 1, 2])
    assert result.metrics["jobs"] == 3


def test_trace_reading_matches_simulate_on_calendar_times():
    jobs = read_trace(os.path.join(ROOT, "tests/fixtures/drevt/unit__timestamp_iso_format/input.csv"))
    assert jobs[0]["submit_time"] == 1704096000 and jobs.queue_column == "queue"


def test_bad_trace_row_is_one_line(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("job_submit_time,num_nodes,time_limit\n0,x,10\n")
    with pytest.raises(ValueError, match=r"bad\.csv:2: num_nodes: not a value"):
        read_trace(str(bad))


class Twice(Scheduler):
    def schedule(self, ctx):
        return [dispatch(j) for j in ctx.waiting[:1]] * 2


class TooBig(Scheduler):
    def schedule(self, ctx):
        return [dispatch(j) for j in ctx.waiting]


@pytest.mark.parametrize("scheduler,why", [(Twice(), "0"), (TooBig(), "1")])
def test_an_invalid_decision_fails_the_run_with_the_reason(server, scheduler, why):
    jobs = [{"submit_time": 0, "num_nodes": 6, "time_limit": 100},
            {"submit_time": 0, "num_nodes": 6, "time_limit": 100}]
    with pytest.raises(EvtsimError) as refused:
        run_trace(server.http, jobs, scheduler, total_nodes=10)
    e = refused.value
    assert e.status == 409 and e.kind == "decision", str(e)
    assert why in e.message and "\n" not in e.message


def test_reask_keeps_the_round(server):
    client = Client(server.http)
    with client.create_session(total_nodes=10, admission="external",
                               external={"onInvalid": "reask"}) as session:
        session.append_jobs([{"submit_time": 0, "num_nodes": 6, "time_limit": 100},
                             {"submit_time": 0, "num_nodes": 6, "time_limit": 100}])
        reply = session.advance(0)
        assert reply["awaitingDecisions"] is True
        rnd = reply["round"]
        assert [j["jobId"] for j in rnd["waiting"]] == [0, 1] and rnd["free"] == 10
        with pytest.raises(EvtsimError) as refused:
            session.decide(rnd["round"], [dispatch(0), dispatch(1)])
        assert refused.value.kind == "decision"
        reply = session.decide(rnd["round"], [dispatch(0)])
        while reply.get("awaitingDecisions"):
            reply = session.decide(reply["round"]["round"], [])
        assert reply["monitors"]["nodesInUse"] == 6
    client.close()


def test_results_as_dataframes(server):
    pandas = pytest.importorskip("pandas")
    jobs = [{"submit_time": 0, "num_nodes": 4, "time_limit": 10},
            {"submit_time": 5, "num_nodes": 8, "time_limit": 10}]
    result = run_trace(server.http, jobs, EasyBackfill(), total_nodes=8)
    frame = result.jobs_frame()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["beginTime"]) == [0, 10]
    assert result.metrics_frame()["jobs"][0] == 2
