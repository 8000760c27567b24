/**
 * evtsim: a deterministic discrete-event simulator of batch job scheduling
 * for HPC clusters (FCFS, EASY and conservative backfilling, SJF/LJF), with
 * DR_EVT-compatible traces and outputs.
 *
 * The core is a pure reducer, {@link step}, over an immutable {@link SimState};
 * {@link Simulation} drives it call by call as DR_EVT's streaming API does.
 * Pickers and admission policies plug in through the contracts exported here.
 * The other entries: `@evtsim/evtsim/io` (trace readers and CSV writers),
 * `@evtsim/evtsim/testing` (arbitraries, invariant checkers, `fuzzScheduler`)
 * and `@evtsim/evtsim/cli` (the `evtsim` command, in-process).
 *
 * @example
 * ```ts
 * import { initialState, step } from "@evtsim/evtsim";
 * let s = initialState({ totalNodes: 100, backfillPolicy: "easy" });
 * s = step(s, {
 *   kind: "appendJobs",
 *   jobs: [
 *     { submitTime: 0, numNodes: 70, timeLimit: 200 },
 *     { submitTime: 10, numNodes: 45, timeLimit: 300 },
 *     { submitTime: 20, numNodes: 20, timeLimit: 50 },
 *   ],
 * }).state;
 * s = step(s, { kind: "runToCompletion" }).state;
 * const { rows } = step(s, { kind: "finish" });
 * // Job 2 is backfilled ahead of job 1: it fits the 30 free nodes and ends before 200.
 * if (rows.jobs[2].beginTime !== 20) throw new Error("job 2 should be backfilled at 20");
 * ```
 *
 * @module
 */

export type {
  BackfillPolicy,
  CapacityChange,
  CapacityCutPolicy,
  CapacitySemantics,
  JobOutcome,
  JobRecord,
  JobRow,
  JobSpec,
  JobStoreOverflow,
  NodeWatts,
  Notice,
  PowerCapChange,
  PriorityPolicy,
  RecordedJob,
  ResourceRow,
  RunTimeDistribution,
  RunTimeMode,
  SimulationConfig,
  StepRows,
  StrandedCause,
  SubmissionRow,
} from "./core/types.ts";
export { type ErrorKind, type ErrorLocation, EvtsimError } from "./core/errors.ts";
export { createState, type CreateStateOptions, type SimState } from "./core/state.ts";
export { initialState, type InitialStateOptions } from "./api/initial_state.ts";
export type {
  CandidateSearch,
  JobStateChange,
  Picker,
  PickerSession,
  PickerSetup,
  SessionContext,
} from "./core/picker.ts";
export type {
  Admission,
  AdmissionPromise,
  AdmissionSession,
  SessionResources,
} from "./core/admission.ts";
export {
  type DecisionRow,
  type DispatchDecision,
  type PendCode,
  type PendDecision,
  type PendReason,
  type PendReasonCode,
  pendReasons,
} from "./core/decisions.ts";
export type { PolicyRegistry } from "./core/policies.ts";
export type { QueueDef, QueueState, QueueTable, ResolvedQueue } from "./core/queues.ts";
export type { EndJobOptions, EndOutcome, JobUpdate, LiveEvent } from "./core/live.ts";
export {
  LIVE_INPUTS,
  type LiveField,
  type LiveFieldType,
  type LiveFieldTypes,
  type LiveFieldValues,
  type LiveInput,
  type LiveInputDefinition,
  type LiveInputKind,
  type LiveInputOf,
  type LiveStoredValues,
} from "./core/live_inputs.ts";
export {
  builtinFcfs,
  conservativeBackfill,
  conservativeProfileBackfill,
  conservativeProfileNoCompression,
  defaultRegistry,
  easyBackfill,
  easyExtraBackfill,
  fairshareFactors,
  fairsharePicker,
  type FairshareSettings,
  type FairshareState,
  type FairshareUsage,
  limitOrderPicker,
  noBackfill,
  orderedPicker,
  type OrderedPickerOptions,
  rankFairshare,
  type ResolvedFairshare,
  resolveFairshare,
  withPolicies,
} from "./schedulers/mod.ts";
export { type Input, step, type StepResult } from "./core/step.ts";
export type { Statistics } from "./core/statistics.ts";
export {
  type Breakdowns,
  capacityOverTime,
  type CapacityStep,
  computeMetrics,
  DEFAULT_BSLD_TAU,
  type Fairness,
  FAIRNESS_NAMES,
  type GroupMetrics,
  machineMetrics,
  METRIC_NAMES,
  type Metrics,
  MetricsCollector,
  type MetricsJob,
  type MetricsOptions,
  nearestRank,
  type ResourceFigures,
  type ResourceMetrics,
  ResourceUseCollector,
  utilizationColumns,
} from "./core/metrics.ts";
// What ResourceUseCollector reads of a job row.
export type { EndedJob } from "./core/_metrics_resources.ts";
export {
  activeJobCount,
  availableNodes,
  type BackfillWindow,
  backfillWindow,
  headJob,
  headShadowTime,
  heldJobCount,
  nodesInUse,
  pendingReason,
  type ProjectedRelease,
  statistics,
} from "./core/queries.ts";
export {
  advanceTo,
  appendJobs,
  type AppendJobsOptions,
  cancelJob,
  changeCapacity,
  changeNodes,
  endJob,
  finish,
  flush,
  type NodeChange,
  runToCompletion,
  runUntilExclusive,
  submitJob,
  updateJob,
  updateQueue,
} from "./api/inputs.ts";
export {
  type FinishOptions,
  Simulation,
  type SimulationOptions,
  type SimulationOutput,
  type SimulationSinks,
} from "./api/simulation.ts";
export { type RunConfig, runMany } from "./api/run_many.ts";
export {
  loadSnapshot,
  type LoadSnapshotOptions,
  saveSnapshot,
  type Snapshot,
} from "./api/snapshot.ts";
export {
  fileRecordingSink,
  type RecordingOptions,
  type RecordingSink,
  type RecordingStatus,
} from "./api/recorder.ts";
// The types of a state's stable fields and of the admission contract. The
// state's internal structures (its ordered sets, job store, row buffer,
// generator and statistics sums) are deliberately not exported: they are
// marked `@internal` on `SimState` and may change in any release.
export type { ResolvedConfig } from "./core/config.ts";
export type { RunningJob, RunningSet } from "./core/running.ts";
export {
  checkMemoryPressureFraction,
  ESTIMATED_BYTES_PER_JOB_RECORD,
  memoryPressureLimit,
  type MemoryPressureOptions,
} from "./api/memory.ts";
// Resource models: the contract, the topology cluster, TopoQueue's two
// admission policies, and TopoQueue's schedule and simulate on the engine.
export type {
  ModelNode,
  NodeShare,
  Placement,
  PlaceResult,
  ReleaseScan,
  ResourceDemand,
  ResourceModel,
} from "./core/resource_model.ts";
export type { ResourceModelState } from "./core/state.ts";
// A machine description (--machine): node groups, partitions, job demands on it.
export {
  checkMachine,
  type DemandProblem,
  type DemandRequest,
  type Machine,
  machineDemand,
  type MachineNode,
  machineNodes,
  machinePartitions,
  type MachineProblem,
  NODE_RESOURCE,
  type NodeGroup,
  parseMemory,
  PARTITION_RESOURCE,
  WHOLE_NODE,
} from "./core/machine.ts";
export {
  topologyCluster,
  type TopologyNode,
  type TopologyState,
} from "./schedulers/topology_cluster.ts";
export { greedyBackfillAdmission, strictFifoAdmission } from "./schedulers/topology_admission.ts";
export {
  scheduleTopology,
  type TopoCluster,
  type TopoJob,
  type TopoJobResult,
  type TopoPolicy,
  type TopoPolicyResult,
  type TopoReason,
  type TopoResources,
  type TopoTimedJob,
} from "./api/topology.ts";
export {
  simulateTopology,
  type TopoEvent,
  type TopoJobLifecycle,
  type TopoSimulationResult,
} from "./api/topology_simulation.ts";
// Re-simulating a recorded `.replay` log (what `evtsim replay` does), with
// policies of your own through `registry`.
export { resimulate, type ResimulateOptions, type ResimulateResult } from "./api/resimulate.ts";
export type { Mismatch } from "./api/_resimulation_compare.ts";
export type { Reconfiguration } from "./core/reconfigure.ts";
export type { PolicyModuleRef } from "./io/replay_schema.ts";
