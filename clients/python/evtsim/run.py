"""`run_trace`: a trace through `evtsim serve` with a Python scheduler deciding each round.

    from evtsim import run_trace, EasyBackfill
    result = run_trace("http://127.0.0.1:8787", "jobs.csv", EasyBackfill(), total_nodes=100)
    print(result.metrics["wait_mean_s"], result.rounds)
    open("schedule.csv", "w").write(result.schedule_csv())   # simulate -o's bytes

It creates a session with `admission: "external"`, appends the jobs, calls finish and
answers every round the finish reaches with the scheduler's decisions, until the finish
reply (the schedule's job rows, resources, statistics and metrics). The URL picks the
front: `http://...` the HTTP/JSON one (standard library only), `HOST:PORT` (as `evtsim
serve` prints `gRPC: 127.0.0.1:50051`) the gRPC one (needs grpcio and protobuf, see
evtsim.grpc_client).
"""

import time

from .client import Client
from .protocol import RoundContext, decision_list
from .trace import read_trace, resource_csv, schedule_csv

__all__ = ["run_trace", "RunResult", "drive"]

# Jobs per append request: well under the server's 1 MiB body limit.
APPEND_BATCH = 2000


class RunResult:
    """What a run gave: `jobs` (the schedule's rows, camelCase as the server sends them),
    `resources`, `notices`, `statistics`, `metrics`, `rounds` (rounds answered),
    `scheduler_seconds` (time spent in the scheduler), `wall_seconds`, `session_id`,
    `recording` (the .replay file, when the server records) and `reply` (the whole finish
    reply)."""

    def __init__(self, reply, rounds, scheduler_seconds, wall_seconds, session_id, queue_column,
                 recording=None, msec=False):
        self.reply = reply
        self.jobs = reply.get("jobs", [])
        self.resources = reply.get("resources", [])
        self.notices = reply.get("notices", [])
        self.statistics = reply.get("statistics", {})
        self.metrics = reply.get("metrics", {})
        self.rounds = rounds
        self.scheduler_seconds = scheduler_seconds
        self.wall_seconds = wall_seconds
        self.session_id = session_id
        self.recording = recording
        self.queue_column = queue_column
        self.msec = msec

    def schedule_csv(self):
        """The schedule as `evtsim simulate -o` writes it for the same trace."""
        return schedule_csv(self.jobs, self.queue_column, self.msec)

    def resource_csv(self):
        """The resource timeline as `evtsim simulate -R` writes it."""
        return resource_csv(self.resources, self.msec)

    def jobs_frame(self):
        """The job rows as a pandas DataFrame (needs pandas)."""
        return _pandas().DataFrame(self.jobs)

    def metrics_frame(self):
        """The metric set as a one-row pandas DataFrame (needs pandas)."""
        return _pandas().DataFrame([self.metrics])


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("evtsim: results as DataFrames need pandas (pip install pandas)") from None
    return pandas


def drive(reply, scheduler, decide, counter=None):
    """Answers rounds until a reply is not a round: while `reply` awaits decisions, calls
    `scheduler(ctx)` with its RoundContext and `decide(round_number, decisions)` for the
    next reply. Returns the first reply that is not a round. `counter` (a dict) gets
    `rounds` and `scheduler_seconds` added."""
    rounds, spent = 0, 0.0
    while reply.get("awaitingDecisions"):
        ctx = RoundContext.from_json(reply["round"])
        t0 = time.perf_counter()
        decisions = decision_list(scheduler(ctx))
        spent += time.perf_counter() - t0
        rounds += 1
        reply = decide(ctx.round, decisions)
    if counter is not None:
        counter["rounds"] = counter.get("rounds", 0) + rounds
        counter["scheduler_seconds"] = counter.get("scheduler_seconds", 0.0) + spent
    return reply


def _jobs_of(trace, timezone):
    if isinstance(trace, str) or hasattr(trace, "__fspath__"):
        jobs = read_trace(str(trace), timezone)
        return list(jobs), jobs.queue_column
    jobs = list(trace)
    return jobs, ("queue" if any(j.get("queue") for j in jobs) else None)


def run_trace(url, trace, scheduler, total_nodes=None, run_time_mode=None, picker=None,
              name="python", on_invalid="fail", round_timeout=None, token=None,
              timezone="America/Los_Angeles", msec=False, proto=None, **session_options):
    """Runs `trace` (a CSV path, or job dicts with `submit_time`, `num_nodes`, `time_limit`,
    optionally `actual_run_time`, `queue`, `user`) on a new external session of the server at
    `url`, `scheduler` (a Scheduler, or any callable ctx -> decisions) deciding every round.
    `run_time_mode` ("actual", "limit" ...), `picker` (the waiting jobs' order the scheduler
    sees) and other `session_options` are the session's (snake_case as Client.create_session).
    `on_invalid`: "fail" (default: a refused decision ends the session and raises
    EvtsimError with the server's reason) or "reask". Returns a RunResult.

    Over gRPC (`url` HOST:PORT) `proto` is the dr_evt_service.proto to build the stubs from
    (default: the checkout's)."""
    if not callable(scheduler):
        raise TypeError("scheduler: expected a Scheduler or a callable ctx -> decisions")
    jobs, queue_column = _jobs_of(trace, timezone)
    external = {"onInvalid": on_invalid}
    if round_timeout:
        external["roundTimeout"] = round_timeout
    options = dict(session_options)
    if run_time_mode is not None:
        options["run_time_mode"] = run_time_mode
    if picker is not None:
        options["picker"] = picker
    started = time.perf_counter()
    counter = {}
    if not url.startswith(("http://", "https://")):
        from .grpc_client import run_trace_grpc

        reply, session_id, recording = run_trace_grpc(
            url, jobs, scheduler, total_nodes, external, options, name, token, counter, proto
        )
    else:
        reply, session_id, recording = _run_http(
            url, jobs, scheduler, total_nodes, external, options, name, token, counter
        )
    return RunResult(
        reply,
        counter.get("rounds", 0),
        counter.get("scheduler_seconds", 0.0),
        time.perf_counter() - started,
        session_id,
        queue_column,
        recording,
        msec,
    )


def _run_http(url, jobs, scheduler, total_nodes, external, options, name, token, counter):
    client = Client(url, token=token)
    try:
        session = client.create_session(
            total_nodes=total_nodes, admission="external", external=external, name=name,
            **options
        )
        with session:
            def decide(round_number, decisions):
                return session.decide(round_number, decisions)

            for i in range(0, len(jobs), APPEND_BATCH):
                reply = session._call(
                    "POST", "/jobs", {"jobs": [_api_job(j) for j in jobs[i:i + APPEND_BATCH]]}
                )
                drive(reply, scheduler, decide, counter)
            reply = drive(session.finish(), scheduler, decide, counter)
            session.finished = True
            recording = (reply.get("recording") or session.recording or {}).get("file")
            return reply, session.id, recording
    finally:
        client.close()


def _api_job(job):
    from .client import _camel_keys

    return _camel_keys(job)


