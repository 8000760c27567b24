"""The external-decision protocol's round, as small typed objects, and the decisions.

A session created with `admission: "external"` pauses at each scheduling round
and sends the round's context (docs/external-schedulers.md):

    {"protocol": 1, "round": 7, "time": 3600, "free": 12, "totalNodes": 100,
     "waiting": [{"jobId": 4, "submitTime": 3000, "numNodes": 8, "timeLimit": 7200, ...}],
     "running": [{"jobId": 1, "beginTime": 0, "numNodes": 4, "timeLimit": 9000,
                  "projectedEnd": 9000}],
     "queues": [{"name": "pbatch", "open": true, "running": 3, "maxRunning": 10}]}

`RoundContext.from_json` makes a `RoundContext` of it: `waiting` in the
picker's order, `running` by projected end (begin + time limit) then job id.
A scheduler answers with a list of `dispatch(...)` / `pend(...)` decisions.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

__all__ = [
    "PROTOCOL",
    "RoundContext",
    "WaitingJob",
    "RunningJob",
    "QueueState",
    "dispatch",
    "pend",
]

#: The protocol version this client speaks.
PROTOCOL = 1


@dataclass(frozen=True)
class WaitingJob:
    """A job waiting to start: its demand and limit as the engine plans with them."""

    job_id: int
    submit_time: float
    num_nodes: int
    time_limit: float
    priority: float = 0
    queue: Optional[str] = None
    user: Optional[str] = None
    account: Optional[str] = None
    demand: Optional[Dict[str, Any]] = None

    @staticmethod
    def from_json(j):
        return WaitingJob(
            job_id=j["jobId"],
            submit_time=j["submitTime"],
            num_nodes=j["numNodes"],
            time_limit=j["timeLimit"],
            priority=j.get("priority", 0),
            queue=j.get("queue"),
            user=j.get("user"),
            account=j.get("account"),
            demand=j.get("demand"),
        )


@dataclass(frozen=True)
class RunningJob:
    """A job holding nodes now; `projected_end` = begin + time limit (what a scheduler plans
    with: the real end is known only when it happens)."""

    job_id: int
    begin_time: float
    num_nodes: int
    time_limit: float
    projected_end: float

    @staticmethod
    def from_json(j):
        begin, limit = j["beginTime"], j["timeLimit"]
        return RunningJob(
            job_id=j["jobId"],
            begin_time=begin,
            num_nodes=j["numNodes"],
            time_limit=limit,
            projected_end=j.get("projectedEnd", begin + limit),
        )


@dataclass(frozen=True)
class QueueState:
    name: str
    open: bool = True
    running: int = 0
    max_running: Optional[int] = None

    @staticmethod
    def from_json(j):
        return QueueState(
            name=j["name"],
            open=j.get("open", True),
            running=j.get("running", 0),
            max_running=j.get("maxRunning"),
        )


@dataclass(frozen=True)
class RoundContext:
    """One scheduling round: the clock, the free nodes, the waiting jobs (the picker's order)
    and the running ones (by projected end, then id). `raw` is the round's JSON as sent."""

    round: int
    time: float
    free: int
    total_nodes: int
    waiting: Tuple[WaitingJob, ...]
    running: Tuple[RunningJob, ...]
    queues: Tuple[QueueState, ...] = ()
    free_units: Optional[Dict[str, float]] = None
    raw: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def from_json(r):
        version = r.get("protocol", PROTOCOL)
        if version != PROTOCOL:
            raise ValueError(
                f"the server speaks external-decision protocol {version}; "
                f"this client speaks {PROTOCOL}"
            )
        return RoundContext(
            round=r["round"],
            time=r["time"],
            free=r["free"],
            total_nodes=r.get("totalNodes", 0),
            waiting=tuple(WaitingJob.from_json(j) for j in r.get("waiting", ())),
            running=tuple(RunningJob.from_json(j) for j in r.get("running", ())),
            queues=tuple(QueueState.from_json(q) for q in r.get("queues", ())),
            free_units=r.get("freeUnits"),
            raw=r,
        )


def dispatch(job, backfill=None):
    """A DISPATCH decision for `job` (a WaitingJob or a job id). `backfill` says what the
    recorded decision row calls it (default, as the server's: false for the first waiting
    job, true for any other)."""
    d = {"type": "DISPATCH", "jobId": job if isinstance(job, int) else job.job_id}
    if backfill is not None:
        d["backfill"] = bool(backfill)
    return d


def pend(job, code="external", message=None):
    """A PEND decision for `job` with a reason (code and message): the job stays waiting."""
    reason = {"code": code}
    if message is not None:
        reason["message"] = message
    return {"type": "PEND", "jobId": job if isinstance(job, int) else job.job_id, "reason": reason}


def decision_list(decisions: List[Any]) -> List[Dict[str, Any]]:
    """A scheduler's answer as the protocol's JSON: dicts as they are, an int or a WaitingJob
    as a DISPATCH of it."""
    out = []
    for d in decisions or ():
        if isinstance(d, dict):
            out.append(d)
        elif isinstance(d, (int, WaitingJob)) and not isinstance(d, bool):
            out.append(dispatch(d))
        else:
            raise TypeError(f"not a decision: {d!r} (use evtsim.dispatch(job) or evtsim.pend(job))")
    return out
