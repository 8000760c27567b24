"""Schedulers written in Python: the base class and two of evtsim's built-in rules.

A scheduler gets each round's `RoundContext` and returns the jobs to start now, in
order (`dispatch(job)` decisions; a job it does not name stays waiting):

    class Smallest(Scheduler):
        def schedule(self, ctx):
            out, free = [], ctx.free
            for job in sorted(ctx.waiting, key=lambda j: (j.num_nodes, j.job_id)):
                if job.num_nodes <= free:
                    out.append(dispatch(job))
                    free -= job.num_nodes
            return out

`FCFS` is evtsim's `--backfill_policy none`, `EasyBackfill` its `easy` (DR_EVT's FCFS
EASY rule, see schedulers/admission.ts): run over a session with the default (fcfs)
picker they give the built-in policies' schedules, byte for byte.
"""

from .protocol import dispatch

__all__ = ["Scheduler", "FCFS", "EasyBackfill", "reservation_time"]


class Scheduler:
    """Subclass and override `schedule(ctx) -> list of decisions`."""

    def schedule(self, ctx):
        raise NotImplementedError("a Scheduler subclass defines schedule(self, ctx)")

    def __call__(self, ctx):
        return self.schedule(ctx)


def _start_heads(ctx):
    """Starts waiting jobs in order while each fits the free nodes. Returns the decisions,
    the free nodes left, the running jobs as (projected end, job id, nodes) including the
    heads started now, and the index of the first job that did not fit."""
    free, now = ctx.free, ctx.time
    running = [(r.projected_end, r.job_id, r.num_nodes) for r in ctx.running]
    out = []
    i = 0
    waiting = ctx.waiting
    while i < len(waiting) and waiting[i].num_nodes <= free:
        job = waiting[i]
        out.append(dispatch(job, backfill=False))
        free -= job.num_nodes
        running.append((now + job.time_limit, job.job_id, job.num_nodes))
        i += 1
    return out, free, running, i


class FCFS(Scheduler):
    """First come, first served without backfilling (`-b none`): starts waiting jobs in the
    picker's order while each fits; the first that does not fit blocks the rest."""

    def schedule(self, ctx):
        return _start_heads(ctx)[0]


def reservation_time(nodes, free, running, now):
    """When `nodes` nodes are projected to be free (DR_EVT's calculate_fcfs_reservation):
    `now` if they are free now; else the projected end (begin + limit) of the running job,
    taken by projected end then id among those ending after `now`, whose release covers the
    deficit; `now` when the releases never cover it (which blocks backfilling).
    `running` holds (projected end, job id, nodes) tuples."""
    if nodes <= free:
        return now
    deficit, released = nodes - free, 0
    for end, _job, n in sorted(running):
        if not end > now:
            continue
        released += n
        if released >= deficit:
            return end
    return now


class EasyBackfill(Scheduler):
    """FCFS + EASY backfilling as DR_EVT (and evtsim's `-b easy`) does it: heads start while
    they fit; the first that does not (the head) gets a shadow time from the running jobs'
    projected ends (including the heads just started); a later job starts when it fits the
    free nodes now and `now + limit < shadow` (strictly), in the waiting order, until no
    node is free. No "extra nodes" rule, and no backfill pass when no node is free."""

    def schedule(self, ctx):
        out, free, running, i = _start_heads(ctx)
        waiting = ctx.waiting
        if i >= len(waiting) or free <= 0:
            return out
        now = ctx.time
        shadow = reservation_time(waiting[i].num_nodes, free, running, now)
        for job in waiting[i + 1:]:
            if free <= 0:
                break
            if job.num_nodes <= free and now + job.time_limit < shadow:
                out.append(dispatch(job, backfill=True))
                free -= job.num_nodes
        return out
