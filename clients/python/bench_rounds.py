"""Rounds per second of a Python scheduler over evtsim serve's HTTP and gRPC fronts, and the
whole run's time against the in-process policy (`evtsim simulate -b easy`).

    python3 clients/python/bench_rounds.py --trace kth.csv --nodes 100 [--repeat 3]

It starts `evtsim serve` from this checkout (deno run -A cli/main.ts serve --port 0
--grpc_port 0; EVTSIM_ROOT names another checkout), runs the trace with the package's
EasyBackfill over HTTP and, when grpcio can be imported, over gRPC, checks that each schedule
is simulate's byte for byte, and prints per front: rounds, wall seconds, rounds per second,
the seconds spent in the Python scheduler itself; then `simulate -b easy`'s wall seconds and
the ratio, and the same run with the Python EASY as `simulate --external_command` (no server,
one JSON line each way). Runs alternate (HTTP, gRPC, simulate, stdio, HTTP, ...) `--repeat`
times; the medians are printed. Convert the KTH log first:

    deno run -A bench/swf_to_csv.ts /work/shared/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --out kth.csv
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.abspath(os.environ.get("EVTSIM_ROOT") or os.path.join(HERE, "..", ".."))
# The gRPC messages come from the proto of the checkout the server runs from.
os.environ.setdefault("EVTSIM_PROTO", os.path.join(ROOT, "api", "service", "dr_evt_service.proto"))

from evtsim import EasyBackfill, run_trace  # noqa: E402
from evtsim.grpc_client import grpc_available  # noqa: E402


def start_server():
    proc = subprocess.Popen(
        ["deno", "run", "-A", "cli/main.ts", "serve", "--port", "0", "--grpc_port", "0",
         "--spare_workers", "1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
        text=True,
    )
    addresses = {}
    for line in proc.stdout:
        m = re.match(r"^(HTTP|gRPC): (\S+)$", line.strip())
        if m:
            addresses[m.group(1)] = m.group(2)
        if len(addresses) == 2:
            break
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, addresses


def simulate(trace, nodes, out, *policy):
    t0 = time.perf_counter()
    r = subprocess.run(["deno", "run", "-A", os.path.join(ROOT, "cli", "main.ts"), "simulate",
                        trace, "-n", str(nodes), *(policy or ("-b", "easy")), "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench_rounds: simulate failed: {r.stderr.strip()}")
    return time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", required=True)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="evtsim-bench-")
    proc, addresses = start_server()
    try:
        reference = os.path.join(tmp, "easy.csv")
        fronts = [("HTTP", addresses["HTTP"])]
        if grpc_available():
            fronts.append(("gRPC", addresses["gRPC"]))
        else:
            print("gRPC: skipped (grpcio and protobuf cannot be imported)")
        runs = {name: [] for name, _ in fronts}
        sim, stdio = [], []
        stdio_out = os.path.join(tmp, "stdio.csv")
        command = (f"PYTHONPATH={HERE} PYTHONDONTWRITEBYTECODE=1 {sys.executable} "
                   "-m evtsim.stdio easy")
        for _ in range(args.repeat):
            for name, url in fronts:
                r = run_trace(url, args.trace, EasyBackfill(), total_nodes=args.nodes,
                              name="bench")
                runs[name].append(r)
            sim.append(simulate(args.trace, args.nodes, reference))
            stdio.append(simulate(args.trace, args.nodes, stdio_out, "--admission", "external",
                                  "--external_command", command))
        with open(reference) as f:
            expected = f.read()
        sim_s = statistics.median(sim)
        for name, results in runs.items():
            same = all(r.schedule_csv() == expected for r in results)
            wall = statistics.median(r.wall_seconds for r in results)
            rounds = results[0].rounds
            sched = statistics.median(r.scheduler_seconds for r in results)
            print(f"{name}: {rounds} rounds in {wall:.1f} s = {rounds / wall:.0f} rounds/s "
                  f"(Python scheduler {sched:.2f} s); {wall / sim_s:.0f}x simulate -b easy; "
                  f"schedule {'identical' if same else 'DIFFERENT'}")
        with open(stdio_out) as f:
            same = f.read() == expected
        stdio_s = statistics.median(stdio)
        print(f"stdio: simulate --external_command 'python3 -m evtsim.stdio easy': "
              f"{stdio_s:.1f} s, {stdio_s / sim_s:.0f}x simulate -b easy; "
              f"schedule {'identical' if same else 'DIFFERENT'}")
        print(f"simulate -b easy: {sim_s:.2f} s (whole command, process start included)")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
