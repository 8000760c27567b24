import { assertEquals } from "../_assert.ts";
import { sharedInput, shareTrace } from "../../cli/_compare_jobs.ts";
import type { LoadedInput } from "../../cli/load.ts";
import type { JobSpec } from "../../core/types.ts";

const input = (jobs: JobSpec[]): LoadedInput => ({
  mode: "simulation",
  jobs,
  recorded: [],
  queueColumn: "queue",
  messages: ["t.csv: read 3 jobs"],
  linesRead: 3,
  swf: {
    header: { queues: new Map([[1, "batch"]]), entries: [["MaxNodes", "4"]] },
    unit: "procs",
    procsPerNode: 1,
    fields: new Float64Array([1, 2, 3]),
  },
});

Deno.test("a trace shared with compare's workers comes back with the same jobs, keys in the same order", () => {
  const jobs: JobSpec[] = [
    { submitTime: 0, numNodes: 2, timeLimit: 10, actualRunTime: 5, queue: "batch", user: "7" },
    { numNodes: 1, submitTime: 0.5, timeLimit: 3, actualRunTime: undefined, priority: -2 },
    { submitTime: 1, numNodes: 4, timeLimit: 9, account: "a", user: "" },
  ];
  const t = shareTrace("key", input(jobs))!;
  // As a worker receives it.
  const back = sharedInput(structuredClone(t));
  assertEquals(back, input(jobs));
  assertEquals(back.jobs.map((j) => Object.keys(j)), jobs.map((j) => Object.keys(j)));
  assertEquals(t.key, "key");
});

Deno.test("a trace whose jobs carry more than numbers and strings is not shared (the worker reads it)", () => {
  const demand = { perReplica: { cores: 2 }, replicas: 1 } as unknown as JobSpec["demand"];
  const jobs: JobSpec[] = [{ submitTime: 0, numNodes: 1, timeLimit: 1, demand }];
  assertEquals(shareTrace("key", input(jobs)), undefined);
  assertEquals(shareTrace("key", { ...input([]), mode: "replay" }), undefined);
});
