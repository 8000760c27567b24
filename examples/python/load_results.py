"""Loads evtsim's outputs into pandas DataFrames: the stats JSON, the schedule CSV and the
Parquet schedule.

    evtsim simulate examples/demo_trace.csv -n 128 --extended_output \\
      -o run.csv --stats_json run.json
    evtsim simulate examples/demo_trace.csv -n 128 --extended_output -o run.parquet
    python3 examples/python/load_results.py --stats_json run.json --schedule run.csv \\
      --parquet run.parquet

Needs pandas, and pyarrow or fastparquet for the Parquet file
(`pip install pandas pyarrow`). The three loaders (`load_stats`,
`load_schedule_csv`, `load_schedule_parquet`) are meant to be imported into a
notebook or script of your own; run as a script it prints what it loaded, the
mean wait recomputed from the schedule next to the stats JSON's, the wait per
queue, and whether the Parquet file holds the CSV's values.
"""

import argparse
import json
import sys

# The schedule's text columns: read as text in the CSV too ("" when empty), as
# the Parquet file stores them.
TEXT_COLUMNS = ("queue", "q_id", "trace_job_id", "trace_user")


def _pandas():
    try:
        import pandas as pd
    except ImportError:
        raise SystemExit("load_results: needs pandas (pip install pandas pyarrow)") from None
    return pd


def load_stats(path):
    """`--stats_json`: returns (metrics, statistics, config). `metrics` is a one-row
    DataFrame of the metric set (the README's metrics glossary; concatenate several runs'
    rows to compare them), `statistics` a Series of the statistics block, `config` the
    effective configuration as a dict."""
    pd = _pandas()
    with open(path, encoding="utf-8") as f:
        stats = json.load(f)
    metrics = pd.DataFrame([stats["metrics"]])
    return metrics, pd.Series(stats["statistics"], name="statistics"), stats["config"]


def load_schedule_csv(path):
    """The schedule CSV (`-o run.csv`, with or without `--extended_output`): one row per job,
    times in seconds; the text columns as text."""
    pd = _pandas()
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
    text = {c: str for c in TEXT_COLUMNS if c in header}
    return pd.read_csv(path, dtype=text, keep_default_na=False)


def load_schedule_parquet(path):
    """The Parquet schedule (`-o run.parquet`): the CSV's columns and values."""
    pd = _pandas()
    try:
        return pd.read_parquet(path)
    except ImportError:
        raise SystemExit(
            "load_results: reading Parquet needs pyarrow or fastparquet (pip install pyarrow)"
        ) from None


def same_values(a, b):
    """Whether two schedules hold the same values column by column (numbers compared as
    numbers, whatever their width; text as text)."""
    pd = _pandas()
    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return False
    for c in a.columns:
        x, y = a[c].reset_index(drop=True), b[c].reset_index(drop=True)
        numeric = pd.api.types.is_numeric_dtype
        if numeric(x) and numeric(y):
            if not (x.astype("float64") == y.astype("float64")).all():
                return False
        elif not (x.astype(str) == y.astype(str)).all():
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stats_json", help="a run's --stats_json file")
    parser.add_argument("--schedule", help="its schedule CSV (-o run.csv)")
    parser.add_argument("--parquet", help="a Parquet schedule (-o run.parquet)")
    args = parser.parse_args()
    if not (args.stats_json or args.schedule or args.parquet):
        parser.error("give at least one of --stats_json, --schedule, --parquet")
    _pandas()  # says so at once when pandas is missing

    metrics = csv = None
    path = None
    try:
        if args.stats_json:
            path = args.stats_json
            metrics, statistics, config = load_stats(path)
            print(
                f"stats: {statistics['totalJobs']:g} jobs on {config['totalNodes']} nodes, "
                f"{config['backfillPolicy']} backfilling, {len(metrics.columns)} metrics"
            )
            shown = ["jobs", "wait_mean_s", "wait_p90_s", "bsld_mean", "utilization"]
            print(metrics[shown].to_string(index=False))
        if args.schedule:
            path = args.schedule
            csv = load_schedule_csv(path)
            print(f"schedule (CSV): {len(csv)} jobs, columns {', '.join(csv.columns)}")
            ran = csv[csv["exit_status"] == 0]
            wait = ran["begin_time"] - ran["job_submit_time"]
            line = f"mean wait from the schedule: {wait.mean():.3f} s"
            if metrics is not None:
                line += f" (stats JSON: {metrics['wait_mean_s'][0]:.3f} s)"
            print(line)
            queue = next((c for c in ("queue", "q_id") if c in csv.columns), None)
            if queue is not None:
                per_queue = ran.assign(wait_s=wait).groupby(queue)["wait_s"]
                print(per_queue.agg(["count", "mean", "max"]).to_string())
        if args.parquet:
            path = args.parquet
            pq = load_schedule_parquet(path)
            print(f"schedule (Parquet): {len(pq)} jobs")
            if csv is not None:
                verdict = "yes" if same_values(csv, pq) else "NO"
                print(f"the Parquet schedule has the CSV's values: {verdict}")
    except OSError as e:
        print(f"load_results: {path}: cannot read it ({e.strerror or e})", file=sys.stderr)
        return 1
    except KeyError as e:
        print(f"load_results: {path}: has no {e} (not the output it was given as?)",
              file=sys.stderr)
        return 1
    except ValueError as e:
        # Not JSON, not CSV, not Parquet: the reader's one-line reason.
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"load_results: {path}: cannot load it ({reason})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
