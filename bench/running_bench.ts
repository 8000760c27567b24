// The running-job profile (core/running.ts): reservationTime, which every
// EASY pass and every CONSERVATIVE candidate asks, and the add/delete of a
// job that every start and end costs. Baseline for the reservation: DR_EVT's
// way, collecting (end, nodes) pairs, sorting them and summing.
//
// run: deno task bench (or deno bench bench/running_bench.ts)

import { emptyRunningSet, reservationTime, type RunningJob, runningJob } from "../core/running.ts";
import { lowerBound, seededRandom } from "./_util.ts";

const NOW = 500_000;
const byEnd = (a: RunningJob, b: RunningJob) => a.projectedEnd - b.projectedEnd || a.id - b.id;

function fixture(count: number) {
  const rand = seededRandom(count + 1);
  let set = emptyRunningSet();
  const jobs: RunningJob[] = [];
  for (let i = 0; i < count; i++) {
    const j = runningJob(
      i,
      1 + Math.floor(rand() * 8),
      60 + Math.floor(rand() * 86_400),
      NOW - Math.floor(rand() * 3600),
    );
    set = set.add(j);
    jobs.push(j);
  }
  const total = jobs.reduce((s, j) => s + j.numNodes, 0);
  return { set, jobs, sorted: [...jobs].sort(byEnd), total };
}

/** DR_EVT's calculate_fcfs_reservation: filter, sort, accumulate. */
function reservationBySort(nodes: number, free: number, jobs: readonly RunningJob[], now: number) {
  if (nodes <= free) return now;
  const ends = jobs.filter((j) => j.projectedEnd > now).map((j) => [j.projectedEnd, j.numNodes]);
  ends.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let released = 0;
  for (const [end, n] of ends) {
    released += n;
    if (released >= nodes - free) return end;
  }
  return now;
}

for (const count of [100, 1_000, 10_000]) {
  const f = fixture(count);
  // A head needing half the machine: the walk stops about half-way.
  const need = Math.floor(f.total / 2);
  const expected = reservationBySort(need, 0, f.jobs, NOW);
  Deno.bench({
    name: `reservationTime over ordered set (${count} running)`,
    group: `reservation ${count}`,
    fn() {
      if (reservationTime(need, 0, f.set, NOW) !== expected) throw new Error("mismatch");
    },
  });
  Deno.bench({
    name: `collect + sort + sum (${count} running)`,
    group: `reservation ${count}`,
    baseline: true,
    fn() {
      reservationBySort(need, 0, f.jobs, NOW);
    },
  });

  const incoming = runningJob(count + 1, 4, 7200, NOW);
  Deno.bench({
    name: `profile update: add + delete in ordered set (${count} running)`,
    group: `update ${count}`,
    fn() {
      const s = f.set.add(incoming).delete(incoming);
      if (s.size !== count) throw new Error("size drifted");
    },
  });
  Deno.bench({
    name: `profile update: splice insert + delete in sorted array (${count} running)`,
    group: `update ${count}`,
    baseline: true,
    fn() {
      const a = f.sorted;
      a.splice(lowerBound(a, incoming, byEnd), 0, incoming);
      a.splice(lowerBound(a, incoming, byEnd), 1);
    },
  });
}
