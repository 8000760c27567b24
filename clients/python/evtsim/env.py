"""A gym-style scheduling environment on evtsim serve's external-decision protocol.

    from evtsim.env import SchedulingEnv
    env = SchedulingEnv("http://127.0.0.1:8787", total_nodes=100, k=8)
    obs, info = env.reset(trace="jobs.csv", seed=1)
    done = False
    while not done:
        action = 0 if info["action_mask"][0] else env.k     # FCFS, no backfilling
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    print(info["result"]["metrics"]["bsld_mean"])

An episode is one session (admission "external") running the trace: `reset` creates it,
appends the jobs and calls finish; every scheduling round that finish reaches is handed to
the agent, one start per step. `step(action)`: `action` < k starts the waiting job shown in
slot `action` now; `action == k` starts nothing more this round. A round ends when the agent
says stop or when no waiting job fits the free nodes; rounds where nothing fits are answered
without the agent. An action naming an empty slot or a job that does not fit is taken as
"stop" (`info["invalid"]` True); `info["action_mask"]` says which actions are valid.

Observation (a list of `k * 5 + 4` floats, fixed size): per slot, the first k waiting jobs
of the round not started yet, in the picker's order: present (1/0), nodes / total nodes,
time limit / `limit_scale`, wait so far / `wait_scale` (capped at 1), fits now (1/0); then
the machine: free nodes / total, running jobs / total nodes, waiting jobs / (waiting + k),
the waiting jobs' nodes / total (capped at 1).

Reward (`reward=`): "bsld" (default) is minus the bounded slowdown (tau `bsld_tau`) of each
job that finished since the last step; "utilization" is the busy node-seconds since the last
step / (total nodes * 3600) (an episode's sum is the utilization times the makespan in
hours); or a function `f(event) -> float` of the step's event dict (`finished`: the jobs
that finished, with their submit, begin, end and nodes; `busy_node_seconds`; `elapsed`).

Deterministic: the engine is, and `seed` only picks the trace window (`episode_jobs`) and
the session's seed; two `reset(seed=s)` runs given the same actions see the same
observations and rewards. With gymnasium installed, `GymSchedulingEnv` is the same as a
`gymnasium.Env` (Box observation, Discrete(k + 1) action).
"""

import random

from .client import Client
from .protocol import RoundContext, dispatch
from .trace import read_trace

__all__ = ["SchedulingEnv", "first_fit_in_order", "random_valid"]

JOB_FEATURES = 5
MACHINE_FEATURES = 4


class SchedulingEnv:
    """See the module's documentation. `url`: the server's HTTP address; `trace`: the
    default trace (a CSV path or job dicts); `episode_jobs`: jobs per episode, a window of
    the trace starting at a seeded offset, rebased to time 0 (None: the whole trace)."""

    def __init__(self, url, total_nodes, k=8, trace=None, reward="bsld", bsld_tau=10.0,
                 run_time_mode=None, picker=None, episode_jobs=None, wait_scale=86400.0,
                 limit_scale=None, max_steps=None, token=None):
        if k < 1:
            raise ValueError("k: at least one slot")
        if not (reward in ("bsld", "utilization") or callable(reward)):
            raise ValueError('reward: "bsld", "utilization" or a function of the step event')
        self.client = Client(url, token=token)
        self.total_nodes = total_nodes
        self.k = k
        self.trace = trace
        self.reward = reward
        self.bsld_tau = bsld_tau
        self.run_time_mode = run_time_mode
        self.picker = picker
        self.episode_jobs = episode_jobs
        self.wait_scale = wait_scale
        self.limit_scale = limit_scale
        self.max_steps = max_steps
        self.observation_size = k * JOB_FEATURES + MACHINE_FEATURES
        self.action_count = k + 1
        self.session = None
        self._done = True

    # Episode set-up
    def _episode_jobs(self, trace, rng):
        jobs = list(read_trace(trace) if isinstance(trace, str) else trace)
        if self.episode_jobs is not None and len(jobs) > self.episode_jobs:
            start = rng.randrange(len(jobs) - self.episode_jobs + 1)
            jobs = jobs[start:start + self.episode_jobs]
            t0 = jobs[0]["submit_time"]
            jobs = [{**j, "submit_time": j["submit_time"] - t0} for j in jobs]
        return jobs

    def reset(self, trace=None, seed=None, options=None):
        """Starts an episode on `trace` (or the default one); returns (observation, info)."""
        trace = trace if trace is not None else (options or {}).get("trace", self.trace)
        if trace is None:
            raise ValueError("reset: no trace (give trace=, or one to the environment)")
        self.close_session()
        rng = random.Random(seed)
        jobs = self._episode_jobs(trace, rng)
        if not jobs:
            raise ValueError("reset: the trace has no jobs")
        self._jobs = jobs
        self._scale = self.limit_scale or max(j["time_limit"] for j in jobs) or 1.0
        options = {"admission": "external", "external": {"onInvalid": "fail"}, "name": "gym"}
        if self.run_time_mode is not None:
            options["run_time_mode"] = self.run_time_mode
        if self.picker is not None:
            options["picker"] = self.picker
        if seed is not None:
            options["seed"] = seed
        self.session = self.client.create_session(total_nodes=self.total_nodes, **options)
        self._started = {}  # job id -> (submit, begin, end by its run time, nodes)
        self._steps = 0
        self._rewarded = set()
        self._done = False
        self._last_time = 0.0
        self._pending = {"finished": [], "busy_node_seconds": 0.0, "elapsed": 0.0}
        for i in range(0, len(jobs), 2000):
            reply = self.session._call(
                "POST", "/jobs", {"jobs": [_api(j) for j in jobs[i:i + 2000]]}
            )
            if reply.get("awaitingDecisions"):  # a server that runs rounds on an append
                reply = self._skip(self.session.decide(reply["round"]["round"], []))
        self._enter(self._skip(self.session.finish()))
        return self._observation(), self._info(False)

    # The run time the engine gives a job (what the bounded slowdown is of).
    def _run_time(self, job):
        if self.run_time_mode == "limit":
            return job["time_limit"]
        return job.get("actual_run_time", job["time_limit"])

    def _skip(self, reply):
        """Answers rounds in which no waiting job fits the free nodes (nothing to decide)."""
        while reply.get("awaitingDecisions"):
            ctx = RoundContext.from_json(reply["round"])
            self._account(ctx)
            if any(j.num_nodes <= ctx.free for j in ctx.waiting):
                return reply
            reply = self.session.decide(ctx.round, [])
        return reply

    def _account(self, ctx):
        """Busy node-seconds and finished jobs from the last round to this one."""
        t0, t1 = self._last_time, ctx.time
        if t1 > t0:
            busy = 0.0
            for _, begin, end, nodes in self._started.values():
                lo, hi = max(begin, t0), min(end, t1)
                if hi > lo:
                    busy += nodes * (hi - lo)
            self._pending["busy_node_seconds"] += busy
            self._pending["elapsed"] += t1 - t0
            self._last_time = t1
        running = {r.job_id for r in ctx.running}
        for job_id in list(self._started):
            if job_id not in running and job_id not in self._rewarded:
                self._finish_job(job_id, self._started[job_id][2])

    def _finish_job(self, job_id, end):
        submit, begin, _, nodes = self._started[job_id]
        self._rewarded.add(job_id)
        self._pending["finished"].append(
            {"jobId": job_id, "submitTime": submit, "beginTime": begin, "endTime": end,
             "numNodes": nodes}
        )

    def _enter(self, reply):
        """Takes the reply: a round for the agent, or the end of the episode."""
        self._reply = reply
        if reply.get("awaitingDecisions"):
            self._ctx = RoundContext.from_json(reply["round"])
            self._left = list(self._ctx.waiting)
            self._free = self._ctx.free
            self._chosen = []
            return
        # The finish reply: the episode is over; count every job it lists as finished.
        self._ctx = None
        self._left = []
        self._free = self.total_nodes
        self.session.finished = True
        self._done = True
        end = max((r["endTime"] for r in reply.get("jobs", [])), default=self._last_time)
        if end > self._last_time:
            for _, begin, stop, nodes in self._started.values():
                lo, hi = max(begin, self._last_time), min(stop, end)
                if hi > lo:
                    self._pending["busy_node_seconds"] += nodes * (hi - lo)
            self._pending["elapsed"] += end - self._last_time
            self._last_time = end
        for r in reply.get("jobs", []):
            if r["jobId"] in self._started and r["jobId"] not in self._rewarded:
                submit, begin, _, nodes = self._started[r["jobId"]]
                self._started[r["jobId"]] = (submit, begin, r["endTime"], nodes)
                self._finish_job(r["jobId"], r["endTime"])

    # Acting
    def action_mask(self):
        """Valid actions: slot i holds a job that fits now; the last action (stop) always."""
        mask = [i < len(self._left) and self._left[i].num_nodes <= self._free
                for i in range(self.k)]
        return mask + [True]

    def step(self, action):
        """Starts the job in slot `action` (or nothing more this round, `action == k`);
        returns (observation, reward, terminated, truncated, info)."""
        if self._done:
            raise RuntimeError("step: the episode is over; call reset()")
        action = int(action)
        self._steps += 1
        invalid = False
        if 0 <= action < self.k and self.action_mask()[action]:
            job = self._left.pop(action)
            # As the built-in policies record it: a job with no waiting job left ahead of it
            # starts as a head, any other as a backfill.
            self._chosen.append(dispatch(job, backfill=action != 0))
            self._free -= job.num_nodes
            now = self._ctx.time
            spec = self._jobs[job.job_id] if job.job_id < len(self._jobs) else None
            run = self._run_time(spec) if spec is not None else job.time_limit
            self._started[job.job_id] = (job.submit_time, now, now + run, job.num_nodes)
            end_round = not any(j.num_nodes <= self._free for j in self._left)
        else:
            invalid = action != self.k
            end_round = True
        if end_round:
            reply = self.session.decide(self._ctx.round, self._chosen)
            self._enter(self._skip(reply))
        reward = self._reward()
        truncated = (not self._done and self.max_steps is not None
                     and self._steps >= self.max_steps)
        if truncated:
            self.close_session()
        info = self._info(invalid)
        return self._observation(), reward, self._done, truncated, info

    def _reward(self):
        event, self._pending = self._pending, {"finished": [], "busy_node_seconds": 0.0,
                                               "elapsed": 0.0}
        if callable(self.reward):
            return float(self.reward(event))
        if self.reward == "utilization":
            return event["busy_node_seconds"] / (self.total_nodes * 3600.0)
        total = 0.0
        for r in event["finished"]:
            run = r["endTime"] - r["beginTime"]
            wait = r["beginTime"] - r["submitTime"]
            total -= max((wait + run) / max(run, self.bsld_tau), 1.0)
        return total

    def _observation(self):
        obs = []
        n = self.total_nodes
        now = self._ctx.time if self._ctx is not None else self._last_time
        for i in range(self.k):
            if i < len(self._left):
                j = self._left[i]
                obs += [1.0, j.num_nodes / n, j.time_limit / self._scale,
                        min((now - j.submit_time) / self.wait_scale, 1.0),
                        1.0 if j.num_nodes <= self._free else 0.0]
            else:
                obs += [0.0] * JOB_FEATURES
        running = len(self._ctx.running) + len(self._chosen) if self._ctx is not None else 0
        waiting = len(self._left)
        obs += [self._free / n, running / n, waiting / (waiting + self.k),
                min(sum(j.num_nodes for j in self._left) / n, 1.0)]
        return obs

    def _info(self, invalid):
        info = {"time": self._ctx.time if self._ctx is not None else self._last_time,
                "round": self._ctx.round if self._ctx is not None else None,
                "waiting": len(self._left), "free": self._free,
                "action_mask": self.action_mask(), "invalid": invalid}
        if self._done:
            info["result"] = self._reply
        return info

    def close_session(self):
        """Drops the episode's session if it is still open."""
        if self.session is not None and not self.session.finished:
            try:
                self.session.delete()
            except Exception:
                pass  # gone already
        self.session = None
        self._done = True

    def close(self):
        self.close_session()
        self.client.close()


def _api(job):
    from .client import _camel_keys

    return _camel_keys(job)


def first_fit_in_order(obs, info, k):
    """The heuristic agent: start the first waiting job while it fits, else stop (FCFS
    without backfilling: an episode of it is `--backfill_policy none`'s schedule)."""
    return 0 if info["action_mask"][0] else k


def random_valid(rng):
    """A random agent: any valid action (a fitting slot or stop), uniformly."""

    def act(obs, info, k):
        return rng.choice([a for a, ok in enumerate(info["action_mask"]) if ok])

    return act


try:  # gymnasium's Env API when it is installed
    import gymnasium as _gym
    import numpy as _np

    class GymSchedulingEnv(SchedulingEnv, _gym.Env):
        """SchedulingEnv as a gymnasium.Env: Box observations, Discrete(k + 1) actions."""

        metadata = {"render_modes": []}

        def __init__(self, *args, **kwargs):
            SchedulingEnv.__init__(self, *args, **kwargs)
            self.observation_space = _gym.spaces.Box(
                low=0.0, high=_np.inf, shape=(self.observation_size,), dtype=_np.float32
            )
            self.action_space = _gym.spaces.Discrete(self.k + 1)

        def reset(self, *, seed=None, options=None, trace=None):
            obs, info = SchedulingEnv.reset(self, trace=trace, seed=seed, options=options)
            return _np.asarray(obs, dtype=_np.float32), info

        def step(self, action):
            obs, reward, terminated, truncated, info = SchedulingEnv.step(self, action)
            return _np.asarray(obs, dtype=_np.float32), reward, terminated, truncated, info

    __all__.append("GymSchedulingEnv")
except ImportError:
    pass
