"""A Python scheduler as the command of `evtsim simulate --external_command`: the
external-decision protocol one JSON object per line each way, no server.

    evtsim simulate trace.csv -n 100 --admission external \\
      --external_command "python3 -m evtsim.stdio easy"

Each round comes on stdin as HTTP's reply has it (`{"awaitingDecisions": true, "round":
{...}}`); the answer goes to stdout as the `decisions` body (`{"round": N, "decisions":
[...]}`), one line. POLICY is `easy` (EasyBackfill), `none` (FCFS), or `MODULE:NAME`, a
Scheduler subclass (or a function ctx -> decisions) imported from MODULE (the current folder
is on the import path). Needs the evtsim package importable (installed, or PYTHONPATH
naming clients/python).
"""

import importlib
import json
import os
import sys

from .protocol import RoundContext, decision_list
from .schedulers import FCFS, EasyBackfill

__all__ = ["answer_lines", "main"]


def answer_lines(scheduler, lines, write):
    """Answers every round among `lines` (JSON text) with `scheduler`, calling `write` with
    each answer's line (newline included)."""
    for line in lines:
        if not line.strip():
            continue
        message = json.loads(line)
        if not message.get("awaitingDecisions"):
            continue
        ctx = RoundContext.from_json(message["round"])
        body = {"round": ctx.round, "decisions": decision_list(scheduler(ctx))}
        write(json.dumps(body, separators=(",", ":")) + "\n")


def _scheduler(name):
    if name == "easy":
        return EasyBackfill()
    if name in ("none", "fcfs"):
        return FCFS()
    module, sep, attr = name.partition(":")
    if not sep:
        raise ValueError(f"not a policy: {name!r} (easy, none, or MODULE:NAME)")
    sys.path.insert(0, os.getcwd())
    found = getattr(importlib.import_module(module), attr)
    return found() if isinstance(found, type) else found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 -m evtsim.stdio easy|none|MODULE:NAME", file=sys.stderr)
        return 2
    try:
        scheduler = _scheduler(argv[0])
    except (ValueError, ImportError, AttributeError) as e:
        print(f"evtsim.stdio: {e}", file=sys.stderr)
        return 2

    def write(text):
        sys.stdout.write(text)
        sys.stdout.flush()

    answer_lines(scheduler, sys.stdin, write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
