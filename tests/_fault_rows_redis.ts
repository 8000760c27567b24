// Fault catalogue rows of DR_EVT's remaining outputs (issue 30 item 4):
// --redis_uri / --redis_key_prefix and --checkpoint_file /
// --checkpoint_interval_jobs. Each a one-line error, exit 1, nothing written.

import type { FaultRow } from "./repo/fault_catalogue_test.ts";
import { cli, cliProcess } from "./_input_faults.ts";

const TRACE = "job_submit_time,num_nodes,time_limit,actual_run_time\n0,1,60,30\n";

// A loopback port nothing listens on.
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function trace(dir: string, text = TRACE): Promise<string> {
  await Deno.writeTextFile(`${dir}/t.csv`, text);
  return `${dir}/t.csv`;
}

/** Redis outputs and checkpoints. */
export const REDIS_ROWS: FaultRow[] = [
  {
    surface: "process",
    input: "simulate --redis_uri: nothing listens at the URI (a bad trace too: Redis is first)",
    run: async (dir) =>
      cliProcess([
        "simulate",
        await trace(dir, TRACE + "x,1,60,30\n"),
        "--redis_uri",
        `redis://127.0.0.1:${closedPort()}`,
        "--redis_key_prefix",
        "p",
        "-o",
        `${dir}/o.csv`,
      ]),
    expected:
      /^evtsim: cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: connect ECONNREFUSED/,
  },
  {
    surface: "in-process",
    input: "simulate --redis_uri without --redis_key_prefix",
    run: async (dir) =>
      cli(["simulate", await trace(dir), "--redis_uri", "redis://127.0.0.1:6379"]),
    expected: /--redis_uri and --redis_key_prefix must be specified together/,
  },
  {
    surface: "in-process",
    input: "simulate --redis_uri with a URI that is not redis:// or rediss://",
    run: async (dir) =>
      cli([
        "simulate",
        await trace(dir),
        "--redis_uri",
        "http://127.0.0.1:6379",
        "--redis_key_prefix",
        "p",
      ]),
    expected: /cannot connect to Redis at http:\/\/127\.0\.0\.1:6379: .*Expected redis: or rediss:/,
  },
  {
    surface: "in-process",
    input: "simulate --checkpoint_interval_jobs without --checkpoint_file",
    run: async (dir) =>
      cli(["simulate", await trace(dir), "--checkpoint_interval_jobs", "10", "-o", `${dir}/o.csv`]),
    expected: /--checkpoint_interval_jobs requires --checkpoint_file/,
  },
  {
    surface: "in-process",
    input: "simulate --checkpoint_interval_jobs 0",
    run: async (dir) =>
      cli([
        "simulate",
        await trace(dir),
        "--checkpoint_file",
        `${dir}/c.ckpt`,
        "--checkpoint_interval_jobs",
        "0",
      ]),
    expected: /--checkpoint_interval_jobs: must be >= 1, got 0/,
  },
  {
    surface: "in-process",
    input: "simulate --checkpoint_file with --record",
    run: async (dir) =>
      cli([
        "simulate",
        await trace(dir),
        "--checkpoint_file",
        `${dir}/c.ckpt`,
        "--record",
        `${dir}/r.replay`,
      ]),
    expected: /--checkpoint_file cannot be used with --record/,
  },
  {
    surface: "process",
    input: "simulate --checkpoint_file naming a file that is not a checkpoint",
    run: async (dir) => {
      await Deno.writeTextFile(`${dir}/c.ckpt`, "job_submit_time,num_nodes\n");
      return cliProcess([
        "simulate",
        await trace(dir),
        "--checkpoint_file",
        `${dir}/c.ckpt`,
        "-o",
        `${dir}/o.csv`,
      ]);
    },
    expected: /c\.ckpt: checkpoint: not a checkpoint \(not JSON\); remove it to start afresh/,
  },
  {
    surface: "in-process",
    input: "simulate --trace_type pcon: the header has no maxpcon column",
    run: async (dir) =>
      cli([
        "simulate",
        await trace(dir, "job_submit_time,num_nodes,time_limit,avgpcon,minpcon\n0,1,60,1,1\n"),
        "--trace_type",
        "pcon",
        "-o",
        `${dir}/o.csv`,
      ]),
    expected:
      /t\.csv:1: maxpcon: expected this column in the header \(--trace_type pcon\), got none/,
  },
  {
    surface: "process",
    input: "simulate --trace_type pcon: a minpcon that is not a number",
    run: async (dir) =>
      cliProcess([
        "simulate",
        await trace(
          dir,
          "job_submit_time,num_nodes,time_limit,avgpcon,minpcon,maxpcon\n0,1,60,1,1,1\n0,1,60,1,x,1\n",
        ),
        "--trace_type",
        "pcon",
        "-o",
        `${dir}/o.csv`,
      ]),
    expected: /t\.csv:3: minpcon: expected a number, got 'x'/,
  },
  {
    surface: "in-process",
    input: "simulate --trace_type pcon with --machine",
    run: async (dir) =>
      cli([
        "simulate",
        await trace(dir),
        "--trace_type",
        "pcon",
        "--machine",
        `${dir}/m.yaml`,
        "-o",
        `${dir}/o.csv`,
      ]),
    expected: /--trace_type pcon cannot be used with --machine/,
  },
];
