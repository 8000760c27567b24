// A one-line progress display on stderr for long runs. Shown only on a
// terminal (or with --progress), redrawn at most ten times a second.

/** Progress reporter; `update` is cheap to call often. */
export class Progress {
  private last = 0;
  private readonly enabled: boolean;
  private readonly started = performance.now();
  private readonly encoder = new TextEncoder();
  private drawn = false;

  constructor(private readonly label: string, private readonly total: number, enabled: boolean) {
    this.enabled = enabled && total > 0;
  }

  /** Reports `done` of `total` units. */
  update(done: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100 && done < this.total) return;
    this.last = now;
    const frac = Math.min(1, done / this.total);
    const width = 30;
    const filled = Math.round(frac * width);
    const secs = (now - this.started) / 1000;
    const rate = secs > 0 ? Math.round(done / secs) : 0;
    const bar = "#".repeat(filled) + "-".repeat(width - filled);
    const text = `\r${this.label} [${bar}] ${
      (frac * 100).toFixed(1)
    }% ${done}/${this.total} jobs, ${rate}/s`;
    Deno.stderr.writeSync(this.encoder.encode(text));
    this.drawn = true;
  }

  /** Ends the line. */
  done(): void {
    if (this.drawn) Deno.stderr.writeSync(this.encoder.encode("\n"));
    this.drawn = false;
  }
}
