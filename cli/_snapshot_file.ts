// `evtsim simulate --from_snapshot FILE`: the state a snapshot file holds.

import { checkSnapshot } from "../api/snapshot.ts";
import { EvtsimError } from "../core/errors.ts";
import type { SnapshotData } from "../core/snapshot.ts";
import { restoreSnapshot } from "../core/_snapshot_restore.ts";
import type { SimState } from "../core/state.ts";
import { parseLog } from "../io/replay_reader.ts";
import { defaultRegistry } from "../schedulers/registry.ts";
import type { PolicyRegistry } from "../core/policies.ts";

/**
 * The state in a snapshot file: a `.replay` log (its last snapshot) or a
 * JSON snapshot value (as `saveSnapshot` returns it).
 */
export async function readSnapshotFile(
  path: string,
  registry: PolicyRegistry = defaultRegistry(),
): Promise<SimState> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    throw new EvtsimError("input", `cannot read: ${(e as Error).message}`, { file: path });
  }
  let data: SnapshotData;
  let line: number | undefined;
  if (/^\s*\{\s*"type"\s*:\s*"header"/.test(text)) {
    const log = parseLog(text, path);
    const snaps = log.entries.filter((e) => e.type === "snapshot");
    const last = snaps[snaps.length - 1] as { state: SnapshotData; line: number };
    data = last.state;
    line = last.line;
  } else {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new EvtsimError(
        "input",
        "neither a .replay log nor a JSON snapshot (saveSnapshot's value)",
        { file: path },
      );
    }
    try {
      data = checkSnapshot(value);
    } catch (e) {
      throw new EvtsimError("input", (e as Error).message, { file: path });
    }
  }
  try {
    return restoreSnapshot(data, registry);
  } catch (e) {
    if (!(e instanceof EvtsimError)) throw e;
    throw new EvtsimError(e.kind, e.message, { file: path, line });
  }
}
