"""examples/python/python_scheduler.py and gym_agents.py against the test's server: their
schedules are simulate's (-b easy; -b none for the heuristic agent), and a failure is one
line on stderr with exit 1."""

import os
import subprocess
import sys

from conftest import ROOT, simulate_many

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "examples", "python"))
TRACE = os.path.join(ROOT, "tests", "fixtures", "drevt", "scheduler_correctness__23_mixed_load",
                     "input.csv")


def example(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          cwd=EXAMPLES, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


def test_examples_give_simulates_schedules(server, tmp_root):
    easy, none = (os.path.join(tmp_root, f"examples-{p}.csv") for p in ("easy", "none"))
    simulate_many([["simulate", TRACE, "-n", "100", "-b", "easy", "-o", easy],
                   ["simulate", TRACE, "-n", "100", "-b", "none", "-o", none]], tmp_root)
    got = os.path.join(tmp_root, "examples-got.csv")
    r = example("python_scheduler.py", "--url", server.http, "--trace", TRACE, "--nodes", "100",
                "--schedule", got)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("easy: ") and "wait_mean_s " in r.stdout
    with open(got) as a, open(easy) as b:
        assert a.read() == b.read()
    r = example("gym_agents.py", "--url", server.http, "--trace", TRACE, "--nodes", "100",
                "--agent", "heuristic", "--schedule", got)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("heuristic agent: ")
    with open(got) as a, open(none) as b:
        assert a.read() == b.read()
    r = example("gym_agents.py", "--url", server.http, "--trace", TRACE, "--nodes", "100",
                "--agent", "random", "--seed", "3")
    assert r.returncode == 0 and r.stdout.startswith("random agent: "), r.stderr


def test_examples_fail_in_one_line(server, tmp_root):
    bad = os.path.join(tmp_root, "examples-bad.csv")
    with open(bad, "w") as f:
        f.write("job_submit_time,num_nodes,time_limit\n0,x,10\n")
    for script in ("python_scheduler.py", "gym_agents.py"):
        r = example(script, "--url", server.http, "--trace", bad)
        assert r.returncode == 1 and r.stdout == "", r.stdout
        assert r.stderr.startswith(f"{script[:-3]}: {bad}:2: num_nodes: not a value"), r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        r = example(script, "--url", server.http, "--trace", TRACE, "--nodes", "0")
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert "Traceback" not in r.stderr
