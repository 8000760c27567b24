/**
 * Reading job traces into job specs and writing a simulation's rows as CSV,
 * the way the `evtsim` command does, for programs that drive a
 * `Simulation` themselves.
 *
 * Readers: DR_EVT CSV traces ({@linkcode parseTrace} for a string,
 * {@linkcode readTrace} for a file, {@linkcode readTraceStream} for a byte
 * stream) and Standard Workload Format logs from the Parallel Workloads
 * Archive ({@linkcode readSwf} for a file, {@linkcode readSwfStream} for a
 * byte stream, {@linkcode parseSwfText} for a string; gzip input is
 * decompressed on the fly), and Slurm accounting exports (`sacct --parsable2`:
 * {@linkcode readSacct}, {@linkcode readSacctStream}, {@linkcode parseSacct}).
 * Bad input throws an `EvtsimError` whose message
 * names the file, line and field.
 *
 * Writers: {@linkcode scheduleCsv} and {@linkcode resourceCsv} make whole
 * files; {@linkcode scheduleCsvHeader} / {@linkcode scheduleCsvLine} and
 * {@linkcode resourceCsvHeader} / {@linkcode resourceCsvLine} write rows as a
 * `Simulation`'s sinks receive them.
 *
 * @example Read a trace, stream it through a simulation, write the schedule
 * ```ts
 * import { Simulation } from "@evtsim/evtsim";
 * import { parseTrace, scheduleCsvHeader, scheduleCsvLine } from "@evtsim/evtsim/io";
 *
 * const trace = parseTrace(
 *   "job_submit_time,num_nodes,time_limit,actual_run_time\n0,64,3600,1800\n60,32,600,600\n",
 *   { file: "jobs.csv" },
 * );
 * const lines = [scheduleCsvHeader()];
 * const sim = new Simulation({ totalNodes: 64 }, { onJobRow: (r) => lines.push(scheduleCsvLine(r)) });
 * for (const job of trace.jobs) sim.appendJob(job); // or appendJobs(trace.jobs)
 * sim.finish();
 * console.assert(lines.join("\n") === [
 *   "job_submit_time,begin_time,end_time,num_nodes,exit_status,time_limit",
 *   "0,0,1800,64,0,3600",
 *   "60,1800,2400,32,0,600",
 * ].join("\n"));
 * ```
 *
 * @example Read an SWF log's machine size and jobs from a stream
 * ```ts
 * import { readSwfStream } from "@evtsim/evtsim/io";
 * const log = "; MaxNodes: 16\n; MaxProcs: 128\n1 0 5 100 8 -1 -1 8 600 -1 1 1 1 -1 1 -1 -1 -1\n";
 * const swf = await readSwfStream(new Blob([log]).stream(), "log.swf", { unit: "nodes" });
 * // 8 processors per node from MaxProcs / MaxNodes: the job needs 1 node of 16.
 * console.assert(swf.machineSize === 16 && swf.jobs[0].numNodes === 1);
 * ```
 *
 * @example Read a Slurm accounting export (`sacct -X --parsable2`)
 * ```ts
 * import { parseSacct } from "@evtsim/evtsim/io";
 * const text = "JobID|Submit|Start|End|Timelimit|NNodes|User|Partition|State\n" +
 *   "41|2024-03-04T09:00:00|2024-03-04T09:00:20|2024-03-04T09:30:20|01:00:00|2|ann|gpu|COMPLETED\n" +
 *   "41.batch|2024-03-04T09:00:00|2024-03-04T09:00:20|2024-03-04T09:30:20||1|||COMPLETED\n";
 * const { jobs, timeOffset } = parseSacct(text, "jobs.psv");
 * // Times are seconds after the first submit (epoch timeOffset); step lines are skipped.
 * console.assert(jobs.length === 1 && jobs[0].actualRunTime === 1800 && jobs[0].queue === "gpu");
 * console.assert(timeOffset === 1709542800);
 * ```
 *
 * @module
 */

export {
  DEFAULT_TIMEZONE,
  type LoadedTrace,
  parseTrace,
  readTrace,
  readTraceStream,
  type TraceDemandReader,
  type TraceReadOptions,
} from "./trace_csv.ts";
export {
  formatSwfReport,
  type LoadedSwf,
  type OverrunPolicy,
  parseSwfText,
  readSwf,
  readSwfStream,
  type SwfHeader,
  type SwfLoadReport,
  type SwfReadOptions,
  type SwfUnit,
} from "./swf.ts";
export {
  formatSacctReport,
  type LoadedSacct,
  parseSacct,
  readSacct,
  readSacctStream,
  type SacctJob,
  type SacctLoadReport,
  type SacctReadOptions,
} from "./sacct.ts";
export {
  resourceCsv,
  resourceCsvHeader,
  resourceCsvLine,
  type ResourceCsvOptions,
  scheduleCsv,
  scheduleCsvHeader,
  scheduleCsvLine,
  type ScheduleCsvOptions,
} from "./rows_csv.ts";
// A machine description (`--machine FILE`) and the job demands read on it.
export { parseMachine, readMachine } from "./machine_file.ts";
export {
  csvDemands,
  type MachineInput,
  machineInput,
  sacctDemand,
  swfDemand,
} from "./_machine_demands.ts";
export type { JobRow, JobSpec, RecordedJob, ResourceRow } from "../core/types.ts";
