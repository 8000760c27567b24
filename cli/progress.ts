// A one-line progress display on stderr for long runs. Shown only on a
// terminal (or with --progress), redrawn at most ten times a second, cut to
// the terminal's width, with the rate and an estimate of the time left.

/** Where the progress line goes. */
export interface ProgressSink {
  /** Writes text as it is (the line starts with a carriage return). */
  write(text: string): void;
  /** Terminal width in columns (80 when stderr is not a terminal). */
  columns(): number;
}

const encoder = new TextEncoder();

/** stderr, with the terminal's width when it has one. */
export const STDERR_SINK: ProgressSink = {
  write: (text) => {
    try {
      Deno.stderr.writeSync(encoder.encode(text));
    } catch { /* a closed stderr only loses the progress line */ }
  },
  columns: () => {
    try {
      return Deno.consoleSize().columns;
    } catch {
      return 80;
    }
  },
};

/**
 * `1h02m`, `3m05s` or `42s`.
 *
 * @example
 * ```ts
 * import { formatDuration } from "./progress.ts";
 * console.assert(formatDuration(42.4) === "42s" && formatDuration(185) === "3m05s");
 * console.assert(formatDuration(3720) === "1h02m");
 * ```
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/**
 * The progress line's text for `done` of `total` after `seconds`, at most
 * `columns - 1` characters wide.
 *
 * @example
 * ```ts
 * import { progressText } from "./progress.ts";
 * const line = progressText("simulating", 250, 1000, 5, 120);
 * console.assert(line.includes("25.0%") && line.includes("ETA 15s"), line);
 * console.assert(progressText("simulating", 250, 1000, 5, 20).length === 19);
 * ```
 */
export function progressText(
  label: string,
  done: number,
  total: number,
  seconds: number,
  columns: number,
  unit = "jobs",
): string {
  const frac = total > 0 ? Math.min(1, done / total) : 0;
  const rate = seconds > 0 ? done / seconds : 0;
  const eta = rate > 0 && done < total ? `, ETA ${formatDuration((total - done) / rate)}` : "";
  const tail = ` ${(frac * 100).toFixed(1)}% ${done}/${total} ${unit}, ${Math.round(rate)}/s${eta}`;
  const room = Math.max(0, columns - 1);
  // The bar takes what is left, between 10 and 30 characters.
  const barWidth = Math.min(30, room - label.length - tail.length - 3);
  let text = label + tail;
  if (barWidth >= 10) {
    const filled = Math.round(frac * barWidth);
    text = `${label} [${"#".repeat(filled)}${"-".repeat(barWidth - filled)}]${tail}`;
  }
  return text.length > room ? text.slice(0, room) : text;
}

/** Progress reporter; `update` is cheap to call often. */
export class Progress {
  private last = -Infinity;
  private readonly enabled: boolean;
  private readonly started = performance.now();
  private drawn = false;
  private width = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    enabled: boolean,
    private readonly sink: ProgressSink = STDERR_SINK,
    private readonly unit = "jobs",
  ) {
    this.enabled = enabled && total > 0;
  }

  /** Reports `done` of `total` units. */
  update(done: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100 && done < this.total) return;
    this.last = now;
    const text = progressText(
      this.label,
      done,
      this.total,
      (now - this.started) / 1000,
      this.sink.columns(),
      this.unit,
    );
    // Pad over a longer previous line so it leaves no leftovers.
    this.sink.write(`\r${text.padEnd(this.width)}`);
    this.width = text.length;
    this.drawn = true;
  }

  /** Ends the line. */
  done(): void {
    if (this.drawn) this.sink.write("\n");
    this.drawn = false;
  }
}
