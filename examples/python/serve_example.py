"""Drives a running `evtsim serve` with a trace, as a live scheduler would be driven.

Start a server, then run this beside it (standard-library Python only):

    evtsim serve --port 8787 --grpc_port off &
    python3 examples/python/serve_example.py --url http://127.0.0.1:8787

It reads a CSV trace (`job_submit_time,num_nodes,time_limit[,actual_run_time][,queue]`,
the demo trace by default), creates a session, and feeds the jobs one hour at
a time: append the hour's jobs, then `run_until` the end of the hour (the
exclusive move, so that jobs submitted at the hour's boundary join that
scheduling pass as in a batch run: the schedule is `evtsim simulate`'s). Once
a day it prints the session's monitors and statistics so far. It shows a call
the server refuses, then finishes the session and prints the metric set, one
`name value` line each, as `evtsim simulate --stats_json` writes it.
"""

import argparse
import csv
import json
import os
import sys

from evtsim_client import Client, EvtsimError

HERE = os.path.dirname(os.path.abspath(__file__))
DAY = 86400


def read_trace(path):
    """The jobs of a CSV trace as the API takes them (the queue column is left out: a
    session knows only the queues it is given)."""
    jobs = []
    with open(path, newline="") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                job = {
                    "submit_time": float(row["job_submit_time"]),
                    "num_nodes": int(row["num_nodes"]),
                    "time_limit": float(row["time_limit"]),
                }
                if row.get("actual_run_time") not in (None, ""):
                    job["actual_run_time"] = float(row["actual_run_time"])
            except (KeyError, TypeError, ValueError) as e:
                raise SystemExit(f"serve_example: {path}:{line}: not a trace row ({e})")
            jobs.append(job)
    jobs.sort(key=lambda j: j["submit_time"])  # stable: ties keep the file's order
    return jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8787", help="the server's HTTP address")
    parser.add_argument("--trace", default=os.path.join(HERE, "..", "demo_trace.csv"))
    parser.add_argument("--nodes", type=int, default=128, help="the machine's size")
    parser.add_argument("--policy", default="easy", help="backfill policy: easy, conservative, none")
    parser.add_argument("--window", type=float, default=3600, help="seconds of trace per step")
    args = parser.parse_args()

    jobs = read_trace(args.trace)
    client = Client(args.url)
    try:
        print(f"server: {client.health()}")
        with client.create_session(
            total_nodes=args.nodes, backfill_policy=args.policy, name="python-example"
        ) as session:
            print(f"session {session.id}: {len(jobs)} jobs, {args.nodes} nodes, {args.policy}")
            next_job, t, next_report = 0, 0.0, DAY
            while next_job < len(jobs):
                t += args.window
                batch = []
                while next_job < len(jobs) and jobs[next_job]["submit_time"] < t:
                    batch.append(jobs[next_job])
                    next_job += 1
                if batch:
                    session.append_jobs(batch)
                session.run_until(t)
                if t >= next_report:
                    m = session.monitors()
                    s = session.statistics()
                    print(
                        f"day {int(t // DAY)}: clock {m['currentTime']:g} s, "
                        f"{m['nodesInUse']} nodes busy, {m['activeJobCount']} jobs waiting, "
                        f"{s['jobsCompleted']} done, average wait so far {s['averageWait']:.1f} s"
                    )
                    next_report += DAY

            # A refused call changes nothing: the clock never goes back.
            try:
                session.advance(0)
            except EvtsimError as e:
                print(f"refused as expected: {e.status} {e.kind}: {e.message}")

            result = session.finish()
    except EvtsimError as e:
        print(f"serve_example: {e}", file=sys.stderr)
        return 1
    print(f"finished: {len(result['jobs'])} jobs in the schedule")
    for name, value in result["metrics"].items():
        print(f"{name} {json.dumps(value)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
