// The benchmark's standard inputs (bench/README.md) come out byte-identical
// to the ones the published figures were measured on, which the original
// Python scripts (gen_trace.py, swf_to_csv.py) wrote: their SHA-256 digests
// were taken from the Python output before the scripts were replaced by the
// TypeScript ones.

import { generateTrace, traceToCsv } from "../../bench/gen_trace.ts";
import { swfToCsv } from "../../bench/swf_to_csv.ts";
import { assertEquals } from "../_assert.ts";

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const GENERATED: [string, Parameters<typeof generateTrace>[0], string][] = [
  [
    "light_100k",
    { seed: 7, jobs: 100000, nodes: 1024, load: 0.9 },
    "a35bfc57185ff43e2f3a6d84b952d111dfe9f2bc57ea610af1229f6fabd98776",
  ],
  [
    "heavy_100k",
    { seed: 8, jobs: 100000, nodes: 1024, load: 1.5, ties: true },
    "3d53c001cff9bae4171a8584aa1abb3ea174c8a5fa6b327ad5e19f37c775e808",
  ],
  [
    "cons_2k",
    { seed: 9, jobs: 2000, nodes: 400, load: 1.2 },
    "aec3b180c5570483c1e37188f48650007d58e88a85525a31dfa2e83917ac44b5",
  ],
];

for (const [name, params, digest] of GENERATED) {
  Deno.test(`standard input ${name}: gen_trace.ts writes the Python generator's bytes`, async () => {
    assertEquals(await sha256(traceToCsv(generateTrace(params))), digest);
  });
}

const DATA = new URL("../../shared/data/swf/", import.meta.url).pathname;
const CONVERTED: [string, string, string][] = [
  [
    "KTH",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "e7466cbb473514ac5ddcb46d4df7d75f887e07c3c13b76cd0dbdf8399a003805",
  ],
  [
    "HPC2N",
    "HPC2N-2002-2.1-cln.swf.gz",
    "0c0ea8add911a16f20f0357a0cb34795d081c293cbb72551daad687bc1b0adb7",
  ],
  [
    "SDSC-BLUE",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "70ff8b694c212d1df807b8439f7f4fb7ff103419ac84d95f9a74afa6c3e68760",
  ],
];

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

for (const [name, log, digest] of CONVERTED) {
  const path = DATA + log;
  const present = exists(path);
  if (!present) console.log(`skipped standard input ${name}: ${path} not found (shared/data)`);
  Deno.test({
    name: `standard input ${name}: swf_to_csv.ts writes the Python converter's bytes`,
    ignore: !present,
    fn: async () => assertEquals(await sha256(await swfToCsv(path)), digest),
  });
}
