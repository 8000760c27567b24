"""evtsim's Python client: drive `evtsim serve` sessions, and schedule them from Python.

- `Client`, `Session`: the HTTP/JSON front, one method per route (standard library only).
- `Scheduler`, `FCFS`, `EasyBackfill`: schedulers that answer an external session's rounds.
- `run_trace(url, trace, scheduler, total_nodes=...)`: a whole trace with a Python scheduler,
  over HTTP (`http://...`) or gRPC (`HOST:PORT`, needs grpcio), returning the schedule and
  the metrics.
- `evtsim.env.SchedulingEnv`: a gym-style reset/step environment on the same protocol.
"""

from .client import Client, EvtsimConnectionError, EvtsimError, Session
from .protocol import PROTOCOL, QueueState, RoundContext, RunningJob, WaitingJob, dispatch, pend
from .run import RunResult, drive, run_trace
from .schedulers import FCFS, EasyBackfill, Scheduler, reservation_time
from .trace import read_trace, resource_csv, schedule_csv

__version__ = "0.1.0"

__all__ = [
    "Client",
    "Session",
    "EvtsimError",
    "EvtsimConnectionError",
    "PROTOCOL",
    "RoundContext",
    "WaitingJob",
    "RunningJob",
    "QueueState",
    "dispatch",
    "pend",
    "Scheduler",
    "FCFS",
    "EasyBackfill",
    "reservation_time",
    "run_trace",
    "RunResult",
    "drive",
    "read_trace",
    "schedule_csv",
    "resource_csv",
]
