// The version of evtsim, read from deno.json so there is one place to bump.

import denoJson from "../deno.json" with { type: "json" };

/**
 * evtsim's version, as deno.json states it.
 *
 * @example
 * ```ts
 * import { VERSION } from "./version.ts";
 * import { main } from "@evtsim/evtsim/cli";
 * // The version `evtsim --version` prints.
 * const out: string[] = [];
 * await main(["--version"], { out: (l) => out.push(l), err: () => {}, isTerminal: false });
 * console.assert(out[0] === `evtsim ${VERSION}` && /^\d+\.\d+\.\d+/.test(VERSION));
 * ```
 */
export const VERSION: string = denoJson.version;
