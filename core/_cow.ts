// One edit protocol for every copy-on-write field of the state
// (docs/design.md, "One edit protocol"). A step never changes what an
// earlier state can see; it changes a draft in place. Each edited field says
// how its draft is made from the state's value (`open`) and how the next
// state's value is made from the draft (`close`), and when it is opened:
// at the start of the step (`eager`: fields nearly every step changes and
// whose opening costs O(1)) or on its first change (`lazy`: `own`).

/** What a field's protocol may use: the step's edit token and its policies. */
export interface EditContext {
  /** The step's edit token: structures created or copied under it are the draft's own. */
  readonly owner: object;
}

/**
 * How a step edits one field: `open` makes the step's draft of the state's
 * value (the value itself never changes afterwards); `close` ends the
 * editing and gives the next state's value, which never changes again.
 */
export interface CopyOnWrite<V, D, C extends EditContext = EditContext> {
  /** `eager`: opened when the step begins; `lazy`: on the first `own`. */
  readonly when: "eager" | "lazy";
  /** The step's draft of `value`. */
  open(value: V, step: C): D;
  /** The next state's value, from a draft `open` made. */
  close(draft: D, step: C): V;
}

/**
 * A persistent structure (OrderedSet, Vec): transient under the step's
 * token, persistent after. `scratch`: an OrderedSet may switch to its
 * sorted-array form for the step (a batch of hundreds of updates).
 */
export function transientEdit<T extends Transient<T>>(scratch = false): CopyOnWrite<T, T> {
  return {
    when: "eager",
    open: (value, step) =>
      scratch ? value.transient(step.owner, true) : value.transient(step.owner),
    close: (draft) => draft.persistent(),
  };
}

/** What OrderedSet and Vec have in common: a transient form under an owner. */
export interface Transient<T> {
  transient(owner: object, scratch?: boolean): T;
  persistent(): T;
}

/** A small flat record: copied when the step begins, frozen as the next state's. */
export function recordEdit<V extends object, D extends V>(): CopyOnWrite<V, D> {
  return {
    when: "eager",
    open: (value) => ({ ...value }) as D,
    close: (draft) => Object.freeze({ ...draft }),
  };
}

/** A draft whose lazy fields are opened on their first change. */
export interface LazyDraft<K extends string> extends EditContext {
  /** Which lazy fields this step has opened (their drafts are its own). */
  readonly opened: Record<K, boolean>;
}

/**
 * The draft of a lazy field, opened now if this step has not yet: what it
 * returns may be changed in place for the rest of the step.
 */
export function own<K extends string, D, C extends LazyDraft<K>>(
  draft: C & { [F in K]: D },
  key: K,
  protocol: CopyOnWrite<unknown, D, C>,
): D {
  if (!draft.opened[key]) {
    draft[key] = protocol.open(draft[key], draft) as (C & { [F in K]: D })[K];
    draft.opened[key] = true;
  }
  return draft[key];
}
