"""The Python FCFS and EASY on hand-made rounds (no server): the rule's details."""

from evtsim import FCFS, EasyBackfill, RoundContext, reservation_time


def round_of(time, free, waiting, running=()):
    """A round: waiting as (id, nodes, limit), running as (id, begin, nodes, limit)."""
    return RoundContext.from_json({
        "protocol": 1, "round": 1, "time": time, "free": free, "totalNodes": 100,
        "waiting": [{"jobId": i, "submitTime": 0, "numNodes": n, "timeLimit": t}
                    for i, n, t in waiting],
        "running": [{"jobId": i, "beginTime": b, "numNodes": n, "timeLimit": t,
                     "projectedEnd": b + t} for i, b, n, t in running],
        "queues": [],
    })


def started(decisions):
    return [(d["jobId"], d.get("backfill")) for d in decisions]


def test_reservation_counts_only_jobs_ending_after_now():
    running = [(50, 1, 30), (100, 2, 20), (100, 3, 10), (200, 4, 40)]
    assert reservation_time(40, 10, running, 50) == 100  # 10 + 20 + 10 >= 40 at 100
    assert reservation_time(40, 10, running, 100) == 200  # those ending at now do not count
    assert reservation_time(10, 10, running, 0) == 0  # fits now
    assert reservation_time(500, 10, running, 0) == 0  # never covered: now (blocks backfill)


def test_easy_heads_then_strict_backfill_before_the_shadow():
    ctx = round_of(10, 40, [(0, 30, 100), (1, 50, 100), (2, 10, 89), (3, 10, 90), (4, 5, 1)],
                   [(9, 0, 60, 100)])
    # Job 0 starts (10 free left); job 1 waits for 50: job 9's 60 nodes at 100 cover its 40.
    # Job 2 ends at 99 < 100: backfilled; job 3 would end at 100 = the shadow: not (strict).
    # After job 2 no node is free: the pass stops before job 4.
    assert started(EasyBackfill().schedule(ctx)) == [(0, False), (2, True)]
    assert started(FCFS().schedule(ctx)) == [(0, False)]


def test_easy_no_backfill_when_no_node_is_free_and_heads_count_in_the_shadow():
    ctx = round_of(0, 10, [(0, 10, 50), (1, 20, 10), (2, 1, 1)])
    assert started(EasyBackfill().schedule(ctx)) == [(0, False)]
    # The head just started (ends at 50) gives the shadow: job 2 ends at 45 < 50.
    ctx = round_of(0, 12, [(0, 10, 50), (1, 12, 10), (2, 1, 45), (3, 1, 50)])
    assert started(EasyBackfill().schedule(ctx)) == [(0, False), (2, True)]
