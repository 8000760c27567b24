// The labels a metrics collector keeps per job (user, account, queue), in a
// file of their own: the job columns (core/_metrics_columns.ts) hold them and
// the breakdowns (core/_metrics_breakdowns.ts) read the columns, so neither
// of those two imports the other for them.

/** The labels a job row may carry, kept as small numbers (one string table). */
export class LabelColumns {
  #ids = new Map<string, number>();
  #names: string[] = [];
  // 0: no label; k > 0: #names[k - 1].
  #cols = [new Uint32Array(1024), new Uint32Array(1024), new Uint32Array(1024)];

  /** The number of label `s` (0 for none), numbering it if new. */
  id(s: string | undefined): number {
    if (s === undefined) return 0;
    let id = this.#ids.get(s);
    if (id === undefined) {
      this.#names.push(s);
      id = this.#names.length;
      this.#ids.set(s, id);
    }
    return id;
  }

  /** Sets job `i`'s labels (jobs are added in order). */
  set(i: number, user: string | undefined, account: string | undefined, queue?: string): void {
    this.setIds(i, this.id(user), this.id(account), this.id(queue));
  }

  /** Sets job `i`'s labels by their numbers ({@link LabelColumns.id}; jobs are added in order). */
  setIds(i: number, user: number, account: number, queue: number): void {
    if (i === this.#cols[0].length) {
      this.#cols = this.#cols.map((c) => {
        const bigger = new Uint32Array(c.length * 2);
        bigger.set(c);
        return bigger;
      });
    }
    this.#cols[0][i] = user;
    this.#cols[1][i] = account;
    this.#cols[2][i] = queue;
  }

  /** Column `c` (0 user, 1 account, 2 queue): per job, 0 for none or k for {@link LabelColumns.name}(k). */
  column(c: 0 | 1 | 2): Uint32Array {
    return this.#cols[c];
  }

  /** The label numbered `k` (> 0) in {@link LabelColumns.column}. */
  name(k: number): string {
    return this.#names[k - 1];
  }

  /** Job `i`'s label in column `c` (0 user, 1 account, 2 queue), or undefined. */
  label(i: number, c: 0 | 1 | 2): string | undefined {
    const k = this.#cols[c][i];
    return k > 0 ? this.#names[k - 1] : undefined;
  }

  /** Job `i`'s labels (only those it has). */
  at(i: number): { user?: string; account?: string; queue?: string } {
    const out: { user?: string; account?: string; queue?: string } = {};
    // Called for every job row (twice at the end of a run): no arrays made.
    const u = this.#cols[0][i], a = this.#cols[1][i], q = this.#cols[2][i];
    if (u > 0) out.user = this.#names[u - 1];
    if (a > 0) out.account = this.#names[a - 1];
    if (q > 0) out.queue = this.#names[q - 1];
    return out;
  }
}
