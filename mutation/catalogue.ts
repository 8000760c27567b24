// The mutation catalogue: hand-made faults, each the kind of slip a change
// could make, with the tests that must catch it. `deno task mutate` applies
// each to a scratch copy of the checkout and runs its tests; a mutation that
// survives (the tests still pass) is a hole in the suite. The first five are
// mutations that once survived the whole suite (docs/mutation-testing.md).

/** One hand-made fault and the tests that must kill it. */
export interface Mutation {
  /** Short name, used by `--only`. */
  readonly name: string;
  /** What the fault breaks, in one line. */
  readonly breaks: string;
  /** The file it edits, relative to the checkout. */
  readonly file: string;
  /** The text it replaces: must occur exactly once in the file. */
  readonly find: string;
  /** The faulty text. */
  readonly replace: string;
  /** Test files (relative) whose run must fail with the fault in place. */
  readonly tests: readonly string[];
}

/** Every mutation `deno task mutate` runs, in order. */
export const MUTATIONS: readonly Mutation[] = [
  {
    name: "conservative-blocking-job",
    breaks: "CONSERVATIVE's reservation_blocked names a later job of the same size ahead",
    file: "schedulers/admission.ts",
    find: "      if (job.numNodes < minAhead) {",
    replace: "      if (job.numNodes <= minAhead) {",
    tests: ["tests/engine/decisions_test.ts"],
  },
  {
    name: "verify-ignores-backfill-flag",
    breaks: "replay --verify compares a DISPATCH by job and nodes only",
    file: "api/_resimulation_compare.ts",
    find: " && b.numNodes === d[2] && b.backfill === (d.length === 4);",
    replace: " && b.numNodes === d[2];",
    tests: ["tests/recording/replay_cli_test.ts"],
  },
  {
    name: "iso-offset-minutes-as-seconds",
    breaks: "an ISO offset's minutes (+05:30) are read as seconds",
    file: "io/timestamps.ts",
    find: "sign * (oh * 3600 + om * 60)",
    replace: "sign * (oh * 3600 + om)",
    tests: ["tests/io/timestamps_test.ts"],
  },
  {
    name: "head-check-accepts-shadow-end",
    breaks: "the testing kit's head-reservation check accepts a FCFS backfill ending at the shadow",
    file: "testing/reservations.ts",
    find: "strict ? t + b.timeLimit < shadow :",
    replace: "strict ? t + b.timeLimit <= shadow :",
    tests: ["tests/engine/properties_test.ts"],
  },
  {
    name: "newline-lost-at-64k",
    breaks: "a line ending exactly at the output buffer's 64 KiB edge loses its newline",
    file: "io/atomic_writer.ts",
    find: "    this.text(text);\n    if (this.used === this.buffer.length) this.drain();\n",
    replace: "    this.text(text);\n",
    tests: ["tests/io/row_writer_test.ts"],
  },
  {
    name: "easy-extra-unplanned-pend",
    breaks: "easy_extra pends a job that does not fit as reservation_blocked when no plan exists",
    file: "schedulers/easy_extra.ts",
    find:
      "        if (job.numNodes > free) {\n          s.pend(job, () => pendReasons.insufficientNodes(job.numNodes, free));\n          continue;\n        }\n",
    replace: "",
    tests: ["tests/engine/decisions_test.ts"],
  },
  {
    name: "fuzz-defaults-hand-kept",
    breaks: "fuzzScheduler pairs only DR_EVT's three admission policies by default",
    file: "testing/fuzz_scheduler.ts",
    find: ": [...(o.admissions ?? [...registry.admissions.keys()])];",
    replace: ': [...(o.admissions ?? ["none", "easy", "conservative"])];',
    tests: ["tests/library/fuzz_scheduler_test.ts"],
  },
  {
    name: "easy-shadow-inclusive",
    breaks: "FCFS EASY backfills a job that ends exactly at the head's shadow time",
    file: "schedulers/admission.ts",
    find: "      : (limit: number) => now + limit < shadow;",
    replace: "      : (limit: number) => now + limit <= shadow;",
    tests: ["tests/cli/conformance_test.ts", "tests/engine/properties_test.ts"],
  },
  {
    name: "max-wait-never-set",
    breaks: "the statistics' maximum wait stays 0",
    file: "core/statistics.ts",
    find: "  if (wait > s.maxWait) s.maxWait = wait;",
    replace: "",
    tests: ["tests/library/simulation_test.ts"],
  },
  {
    name: "queue-limit-off-by-one",
    breaks: "a queue's max_running lets one job too many run",
    file: "core/queues.ts",
    find: 'q.running >= q.def.maxRunning) return "queue_limit";',
    replace: 'q.running > q.def.maxRunning) return "queue_limit";',
    tests: ["tests/engine/decisions_test.ts", "tests/engine/live_events_test.ts"],
  },
];
