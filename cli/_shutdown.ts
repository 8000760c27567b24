// What a long-running command does before SIGINT/SIGTERM end the process
// (cli/main.ts calls these, then exits): `evtsim serve` ends its sessions'
// recordings cleanly here.

const hooks: (() => void)[] = [];

/** Runs `hook` (synchronously) when the process is told to stop. */
export function onShutdown(hook: () => void): void {
  hooks.push(hook);
}

/** Runs every hook once; a hook that throws does not stop the others. */
export function runShutdownHooks(): void {
  for (const hook of hooks.splice(0)) {
    try {
      hook();
    } catch { /* exiting anyway */ }
  }
}
