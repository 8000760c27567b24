// Preloaded by `deno task test` (`--preload`) for the test files: the
// console.assert rule of tests/_assert_preload.ts, and every temp folder of
// the run in one folder of its own (tests/_temp_root.ts).

import "./_assert_preload.ts";
import { enterRunTempFolder } from "./_temp_root.ts";

enterRunTempFolder();
