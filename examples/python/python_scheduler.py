"""A scheduler written in Python deciding every round of a trace on a running `evtsim serve`
(its external-decision protocol): the package's EASY (evtsim.EasyBackfill), FCFS, or the
small "smallest first" scheduler below.

    evtsim serve --port 8787 --grpc_port 50051 &
    python3 examples/python/python_scheduler.py --url http://127.0.0.1:8787 --policy easy \\
      --schedule easy.csv
    python3 examples/python/python_scheduler.py --url 127.0.0.1:50051 --policy easy   # gRPC

`--schedule FILE` writes the schedule as `evtsim simulate -o` does: with `--policy easy` it
is `evtsim simulate TRACE -n NODES -b easy`'s byte for byte (`none`: `-b none`'s).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from evtsim import FCFS, EasyBackfill, EvtsimError, Scheduler, dispatch, run_trace  # noqa: E402


class SmallestFirst(Scheduler):
    """Starts the waiting jobs that fit, smallest first (ties by job id)."""

    def schedule(self, ctx):
        out, free = [], ctx.free
        for job in sorted(ctx.waiting, key=lambda j: (j.num_nodes, j.job_id)):
            if job.num_nodes <= free:
                out.append(dispatch(job))
                free -= job.num_nodes
        return out


POLICIES = {"easy": EasyBackfill, "none": FCFS, "smallest": SmallestFirst}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8787",
                        help="http://HOST:PORT (HTTP) or HOST:PORT (gRPC)")
    parser.add_argument("--trace", default=os.path.join(HERE, "..", "demo_trace.csv"))
    parser.add_argument("--nodes", type=int, default=128)
    parser.add_argument("--policy", choices=sorted(POLICIES), default="easy")
    parser.add_argument("--schedule", help="write the schedule CSV here")
    args = parser.parse_args()
    try:
        result = run_trace(args.url, args.trace, POLICIES[args.policy](), total_nodes=args.nodes)
    except (EvtsimError, ImportError, OSError, ValueError) as e:
        print(f"python_scheduler: {e}", file=sys.stderr)
        return 1
    print(f"{args.policy}: {len(result.jobs)} jobs, {result.rounds} rounds in "
          f"{result.wall_seconds:.1f} s")
    for name in ("wait_mean_s", "bsld_mean", "utilization"):
        print(f"{name} {result.metrics[name]}")
    if args.schedule:
        with open(args.schedule, "w") as f:
            f.write(result.schedule_csv())
    return 0


if __name__ == "__main__":
    sys.exit(main())
