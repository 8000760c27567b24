// Where a command writes its text, in a file of its own: every command takes
// one, and none needs to import simulate.ts (or another command) for it.

/** Where the command writes its text. */
export interface Console {
  /** Prints one line on stdout. */
  out(line: string): void;
  /** Prints one line on stderr. */
  err(line: string): void;
  /** Whether stderr is a terminal (progress is shown only then by default). */
  readonly isTerminal: boolean;
}
