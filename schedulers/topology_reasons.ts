// TopoQueue's pend reasons, with its exact codes and messages, and Go's `%q`
// quoting, which those messages use.

import type { PendReason } from "../core/decisions.ts";
import type { JobRecord } from "../core/types.ts";

// Go's unicode.IsPrint is false for these (the ASCII space aside).
const NOT_PRINTABLE = /^[\p{C}\p{Z}]$/u;

/**
 * A string quoted as Go's `%q` quotes it (`strconv.Quote`): double quotes,
 * backslash escapes for `"` and `\`, `\n`-style escapes for control
 * characters, `\x..` for other bytes below 0x20 and DEL, `\u....` for other
 * characters Go does not print (controls, formats, separators other than the
 * space); printable Unicode stays as it is.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd"; // a lone surrogate: not UTF-8
    else if (c !== 0x20 && NOT_PRINTABLE.test(ch)) {
      out += c <= 0xffff
        ? "\\u" + c.toString(16).padStart(4, "0")
        : "\\U" + c.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + '"';
}

/** `insufficient_capacity`: fewer replica slots cluster-wide than replicas. */
export function insufficientCapacity(replicas: number, clusterSlots: number): PendReason {
  return {
    code: "insufficient_capacity",
    message:
      `requested ${replicas} replicas, but only ${clusterSlots} cluster-wide replica slots are available`,
    requestedReplicas: replicas,
    availableClusterWideReplicaSlots: clusterSlots,
  };
}

/** `topology_fragmented`: enough slots cluster-wide, not in one domain of `key`. */
export function topologyFragmented(
  replicas: number,
  key: string,
  clusterSlots: number,
  largestDomain: string,
  largestSlots: number,
): PendReason {
  return {
    code: "topology_fragmented",
    message: `requested ${replicas} replicas in one ${
      goQuote(key)
    } domain; ${clusterSlots} slots are available cluster-wide, but the largest domain ${
      goQuote(largestDomain)
    } has ${largestSlots}`,
    requestedReplicas: replicas,
    topologyKey: key,
    totalAvailableReplicaSlots: clusterSlots,
    largestTopologyDomain: largestDomain,
    largestTopologyDomainReplicaSlots: largestSlots,
  };
}

/** A job's name for reasons: its demand's name, else `job ID`. */
export function jobName(job: JobRecord): string {
  return job.demand?.name ?? `job ${job.id}`;
}

/** `head_of_line_blocked`: strict FIFO, and `head` (ahead in the queue) cannot be placed. */
export function headOfLineBlocked(head: JobRecord): PendReason {
  const name = jobName(head);
  return {
    code: "head_of_line_blocked",
    message: `head_of_line_blocked_by=${name}`,
    blockedBy: head.id,
    blockingJob: name,
  };
}
