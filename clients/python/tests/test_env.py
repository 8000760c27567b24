"""The gym-style environment: deterministic for a seed and the same actions, and an episode
of the first-fit-in-order agent is `evtsim simulate -b none`'s schedule."""

import os
import random

import pytest
from conftest import ROOT, fixture_cases, quick_or_slow, simulate_many

from evtsim import schedule_csv
from evtsim.env import SchedulingEnv, first_fit_in_order, random_valid

DEMO = os.path.join(ROOT, "examples", "demo_trace.csv")
CASES = fixture_cases()


def episode(env, agent, seed, trace=None, actions=None):
    """Runs one episode; returns (observations, rewards, actions, final info)."""
    obs, info = env.reset(trace=trace, seed=seed)
    seen, rewards, taken = [obs], [], []
    done = False
    i = 0
    while not done:
        action = actions[i] if actions is not None else agent(obs, info, env.k)
        i += 1
        obs, reward, terminated, truncated, info = env.step(action)
        seen.append(obs)
        rewards.append(reward)
        taken.append(action)
        assert len(obs) == env.observation_size
        done = terminated or truncated
    return seen, rewards, taken, info


def test_same_seed_same_actions_same_episode(server):
    env = SchedulingEnv(server.http, total_nodes=128, k=4, trace=DEMO, episode_jobs=150)
    try:
        obs1, rew1, actions, info1 = episode(env, random_valid(random.Random(7)), seed=11)
        obs2, rew2, _, info2 = episode(env, None, seed=11, actions=actions)
        assert obs1 == obs2 and rew1 == rew2
        assert info1["result"]["metrics"] == info2["result"]["metrics"]
        # Another seed takes another window of the trace.
        obs3, _, _, _ = episode(env, random_valid(random.Random(7)), seed=12)
        assert obs3[0] != obs1[0]
        # The bounded slowdown reward adds up to minus the jobs' bounded slowdowns (a job the
        # random agent never started is stranded: the finish reply's notices say so).
        metrics = info1["result"]["metrics"]
        assert metrics["jobs"] >= 140
        assert sum(rew1) == pytest.approx(-metrics["bsld_mean"] * metrics["jobs"])
    finally:
        env.close()


@pytest.mark.parametrize("case", quick_or_slow(CASES))
def test_first_fit_agent_is_no_backfilling(server, tmp_root, case):
    name, path, nodes, mode, msec = case
    out = os.path.join(tmp_root, f"env-{name}.csv")
    simulate_many([["simulate", path, "-n", str(nodes), "-r", mode, "-b", "none", "-o", out]
                   + (["--msec_output"] if msec else [])], tmp_root)
    env = SchedulingEnv(server.http, total_nodes=nodes, k=3, run_time_mode=mode)
    try:
        _, _, _, info = episode(env, first_fit_in_order, seed=0, trace=path)
    finally:
        env.close()
    queue = "queue" if "queue" in open(path).readline() else None
    with open(out) as f:
        assert schedule_csv(info["result"]["jobs"], queue, msec) == f.read()


def test_invalid_action_is_stop_and_utilization_reward(server):
    jobs = [{"submit_time": 0, "num_nodes": 6, "time_limit": 100},
            {"submit_time": 0, "num_nodes": 8, "time_limit": 10},
            {"submit_time": 0, "num_nodes": 4, "time_limit": 10}]
    env = SchedulingEnv(server.http, total_nodes=10, k=2, reward="utilization")
    try:
        obs, info = env.reset(trace=jobs, seed=0)
        assert info["action_mask"] == [True, True, True]
        assert obs[:5] == [1.0, 0.6, 1.0, 0.0, 1.0] and obs[-4] == 1.0
        # Job 0 (6 nodes) starts; 4 nodes free: job 1 (8) in slot 0 does not fit, job 2 does.
        obs, reward, terminated, _, info = env.step(0)
        assert not terminated and info["action_mask"] == [False, True, True]
        assert obs[:5] == [1.0, 0.8, 0.1, 0.0, 0.0] and obs[-4] == 0.4
        total = reward
        obs, reward, terminated, _, info = env.step(0)  # does not fit: taken as stop
        assert info["invalid"] is True
        total += reward
        while not terminated:
            obs, reward, terminated, _, info = env.step(0 if info["action_mask"][0] else env.k)
            total += reward
        # Node-hours of the three jobs over the machine's node count.
        assert total == pytest.approx((8 * 10 + 6 * 100 + 4 * 10) / (10 * 3600))
    finally:
        env.close()


def test_gymnasium_env(server):
    gymnasium = pytest.importorskip("gymnasium")
    from evtsim.env import GymSchedulingEnv

    path = next(c[1] for c in CASES if "23_mixed_load" in c[0])
    env = GymSchedulingEnv(server.http, total_nodes=100, k=3)
    try:
        assert isinstance(env, gymnasium.Env)
        obs, info = env.reset(seed=0, trace=path)
        assert env.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = env.step(env.k)
        assert env.observation_space.contains(obs)
    finally:
        env.close()
