// The version of evtsim, read from deno.json so there is one place to bump.

import denoJson from "../deno.json" with { type: "json" };

/**
 * evtsim's version, as deno.json states it.
 *
 * @example
 * ```ts
 * import { VERSION } from "./version.ts";
 * console.assert(/^\d+\.\d+\.\d+/.test(VERSION));
 * ```
 */
export const VERSION: string = denoJson.version;
