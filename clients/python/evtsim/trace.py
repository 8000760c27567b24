"""Reading a DR_EVT `simple` CSV trace into jobs, and writing a schedule as `evtsim
simulate -o` writes it (the same bytes for the same rows).

Columns are found by their header names, with DR_EVT's aliases: `job_submit_time`,
`num_nodes`, `time_limit` (`timelimit`, `walltime`), optionally `actual_run_time`
(`actual_runtime`, `duration`, `actual_duration`, `run_time`) and `queue` or `q_id`.
Submit times are seconds, or calendar date-times (`2024-01-01 00:00:00`) in
`timezone` (default America/Los_Angeles, as evtsim's). The jobs are sorted by submit
time, ties keeping the file's order, so a job's index is its evtsim job id.
"""

import csv
import datetime
import re

__all__ = ["Trace", "read_trace", "schedule_csv", "resource_csv", "format_time"]

_LIMIT = ("time_limit", "timelimit", "walltime")
_ACTUAL = ("actual_run_time", "actual_runtime", "duration", "actual_duration", "run_time")
_CALENDAR = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")


class Trace(list):
    """The jobs of a trace (dicts as the API takes them), plus `queue_column` ("queue",
    "q_id" or None: whether the schedule CSV has one) and `path`."""

    queue_column = None
    path = None


def _seconds(text, timezone):
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    if not _CALENDAR.match(text):
        raise ValueError(f"not a time: {text!r}")
    import zoneinfo  # Python 3.9+

    local = datetime.datetime.fromisoformat(text.replace("T", " "))
    return local.replace(tzinfo=zoneinfo.ZoneInfo(timezone)).timestamp()


def _number(x):
    """An integral float as an int (the server's JSON numbers as a batch run reads them)."""
    return int(x) if x == int(x) else x


def read_trace(path, timezone="America/Los_Angeles"):
    """The jobs of the CSV trace at `path`, sorted by submit time (stable). A bad row
    raises ValueError naming the file, line and field."""
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            raise ValueError(f"{path}: empty file, expected a header row") from None
        col = {name: i for i, name in reversed(list(enumerate(header)))}

        def find(names, required):
            for n in names:
                if n in col:
                    return col[n]
            if required:
                raise ValueError(f"{path}:1: no column {names[0]}")
            return None

        submit_i = find(("job_submit_time",), True)
        nodes_i = find(("num_nodes",), True)
        limit_i = find(_LIMIT, True)
        actual_i = find(_ACTUAL, False)
        queue_name = "queue" if "queue" in col else "q_id" if "q_id" in col else None
        queue_i = col.get(queue_name) if queue_name else None
        jobs = Trace()
        jobs.queue_column = queue_name
        jobs.path = path
        for line, row in enumerate(reader, start=2):
            if not row or all(not c.strip() for c in row):
                continue
            field = "job_submit_time"
            try:
                job = {"submit_time": _number(_seconds(row[submit_i], timezone))}
                field = "num_nodes"
                job["num_nodes"] = int(row[nodes_i])
                field = header[limit_i]
                job["time_limit"] = _number(float(row[limit_i]))
                if actual_i is not None and row[actual_i].strip() != "":
                    field = header[actual_i]
                    job["actual_run_time"] = _number(float(row[actual_i]))
                if queue_i is not None and row[queue_i].strip() != "":
                    job["queue"] = row[queue_i].strip()
            except (IndexError, ValueError) as e:
                raise ValueError(f"{path}:{line}: {field}: not a value ({e})") from None
            jobs.append(job)
    jobs.sort(key=lambda j: j["submit_time"])
    return jobs


def format_time(t, msec=False):
    """A time as the outputs write it: whole seconds truncated toward zero, or with `msec`
    three decimals (truncated after rounding to microseconds), as evtsim's formatTime."""
    if not msec:
        return str(int(t))
    ms = int(round(t * 1e6) / 1e3)
    sign = "-" if ms < 0 else ""
    whole, frac = divmod(abs(ms), 1000)
    return f"{sign}{whole}.{frac:03d}"


def _csv_field(s):
    return '"' + s.replace('"', '""') + '"' if re.search(r'[",\n\r]', s) else s


def schedule_csv(jobs, queue_column=None, msec=False):
    """The schedule CSV text `evtsim simulate -o` writes for these job rows (the finish
    reply's `jobs`, camelCase keys), in job-id order; `queue_column` ("queue" or "q_id")
    when the trace had one."""
    head = "job_submit_time,begin_time,end_time,num_nodes,exit_status"
    lines = [head + (f",{queue_column}" if queue_column else "") + ",time_limit"]
    for r in sorted(jobs, key=lambda r: r["jobId"]):
        fields = [
            format_time(r["submitTime"], msec),
            format_time(r["beginTime"], msec),
            format_time(r["endTime"], msec),
            str(r["numNodes"]),
            str(r.get("exitStatus", 0)),
        ]
        if queue_column:
            fields.append(_csv_field(r.get("queue") or ""))
        fields.append(format_time(r["timeLimit"], msec))
        lines.append(",".join(fields))
    return "\n".join(lines) + "\n"


def resource_csv(rows, msec=False):
    """The resource timeline CSV text (`-R`) for the finish reply's `resources` rows."""
    lines = ["time,free_nodes,allocated_nodes"]
    for r in rows:
        lines.append(f"{format_time(r['time'], msec)},{r['freeNodes']},{r['allocatedNodes']}")
    return "\n".join(lines) + "\n"
