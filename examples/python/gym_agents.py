"""Two agents of the gym-style environment (evtsim.env.SchedulingEnv) on a running
`evtsim serve`: a random agent (any valid action) and a heuristic one (FCFS first fit in
order: start the first waiting job while it fits, stop at the first that does not, which is
exactly `--backfill_policy none`).

    evtsim serve --port 8787 --grpc_port off &
    python3 examples/python/gym_agents.py --url http://127.0.0.1:8787 --agent heuristic

It runs one episode on the trace (the demo trace by default; `--jobs N` takes a window of N
jobs chosen by `--seed`) and prints the steps, the total reward and the finish reply's
metrics; `--schedule FILE` writes the episode's schedule as `evtsim simulate -o` does.
Standard-library Python only (gymnasium is used when installed, not needed).
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from evtsim import EvtsimError, read_trace, schedule_csv  # noqa: E402
from evtsim.env import SchedulingEnv, first_fit_in_order, random_valid  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8787")
    parser.add_argument("--trace", default=os.path.join(HERE, "..", "demo_trace.csv"))
    parser.add_argument("--nodes", type=int, default=128)
    parser.add_argument("--agent", choices=("random", "heuristic"), default="heuristic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None, help="jobs per episode (a window)")
    parser.add_argument("--k", type=int, default=8, help="waiting jobs the agent sees")
    parser.add_argument("--reward", choices=("bsld", "utilization"), default="bsld")
    parser.add_argument("--schedule", help="write the episode's schedule CSV here")
    args = parser.parse_args()

    try:
        trace = read_trace(args.trace)
    except (OSError, ValueError) as e:
        print(f"gym_agents: {e}", file=sys.stderr)
        return 1
    env = SchedulingEnv(args.url, total_nodes=args.nodes, k=args.k, reward=args.reward,
                        episode_jobs=args.jobs)
    agent = first_fit_in_order if args.agent == "heuristic" else random_valid(
        random.Random(args.seed))
    try:
        obs, info = env.reset(trace=trace, seed=args.seed)
        steps, total, done = 0, 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(agent(obs, info, env.k))
            steps += 1
            total += reward
            done = terminated or truncated
    except EvtsimError as e:
        print(f"gym_agents: {e}", file=sys.stderr)
        return 1
    finally:
        env.close()
    result = info["result"]
    print(f"{args.agent} agent: {steps} steps, total reward {total:.6g}")
    for name in ("jobs", "wait_mean_s", "bsld_mean", "utilization", "makespan_s"):
        print(f"{name} {result['metrics'][name]}")
    if args.schedule:
        with open(args.schedule, "w") as f:
            f.write(schedule_csv(result["jobs"], trace.queue_column))
    return 0


if __name__ == "__main__":
    sys.exit(main())
