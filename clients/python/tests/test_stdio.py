"""`python3 -m evtsim.stdio` as `evtsim simulate --external_command`'s command: the Python EASY
and FCFS give `-b easy` / `-b none`'s schedules with no server, and a bad policy is one line."""

import os
import shlex
import subprocess
import sys

import pytest
from conftest import evtsim, fixture_cases, simulate_many

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = fixture_cases()


def command(policy):
    return (f"PYTHONPATH={shlex.quote(PACKAGE)} PYTHONDONTWRITEBYTECODE=1 "
            f"{shlex.quote(sys.executable)} -m evtsim.stdio {policy}")


# One fixture in the default run (each case starts three Deno processes); all under -m slow.
@pytest.mark.parametrize("case", [
    pytest.param(c, id=c[0], marks=() if "23_mixed_load" in c[0] else pytest.mark.slow)
    for c in CASES
])
def test_stdio_command_gives_simulates_schedule(tmp_root, case):
    name, path, nodes, mode, msec = case
    ref = {p: os.path.join(tmp_root, f"stdio-{name}-{p}.csv") for p in ("easy", "none")}
    simulate_many([["simulate", path, "-n", str(nodes), "-r", mode, "-b", p, "-o", out]
                   + (["--msec_output"] if msec else []) for p, out in ref.items()], tmp_root)
    for policy, expected in ref.items():
        out = os.path.join(tmp_root, f"stdio-{name}-{policy}-got.csv")
        code, _, err = evtsim(["simulate", path, "-n", str(nodes), "-r", mode, "--admission",
                               "external", "--external_command", command(policy), "-o", out]
                              + (["--msec_output"] if msec else []))
        assert code == 0, err
        with open(out) as a, open(expected) as b:
            assert a.read() == b.read(), policy


def test_stdio_bad_policy_is_one_line():
    r = subprocess.run([sys.executable, "-m", "evtsim.stdio", "fastest"], cwd=PACKAGE,
                       capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert r.returncode == 2
    assert r.stderr == "evtsim.stdio: not a policy: 'fastest' (easy, none, or MODULE:NAME)\n"
