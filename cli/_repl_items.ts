// The log events the REPL steps through, read from the re-simulation's
// event source as they are first needed and kept while a position of the
// history may step through them again.

import type { Marker, Resimulation } from "../api/resimulation.ts";
import type { EndItem, EventItem } from "./_repl_types.ts";

/** Log events by index (0: the first after the start snapshot), then the end. */
export class LogItems {
  readonly #sim: Resimulation;
  readonly #items: (EventItem | EndItem | undefined)[] = [];
  /** Items before this one have been dropped. */
  #from = 0;
  /** The error reading the log stopped at: reading on would be reading after a broken line. */
  #error: unknown;

  constructor(sim: Resimulation) {
    this.#sim = sim;
  }

  /** The item at index `i`, read from the log when first needed. */
  at(i: number): EventItem | EndItem {
    const items = this.#items;
    if (items.length <= i && this.#error !== undefined) throw this.#error;
    try {
      this.#read(i);
    } catch (e) {
      this.#error = e;
      throw e;
    }
    const item = items[i];
    if (item === undefined) throw new Error(`item ${i} has left the history`);
    return item;
  }

  #read(i: number): void {
    const items = this.#items;
    while (items.length <= i) {
      const last = items[items.length - 1];
      if (last?.kind === "end") throw new Error(`no item ${i}: the log has ended`);
      if (last?.kind === "event" && last.trailing === undefined) {
        last.trailing = this.#sim.readMarkers();
      }
      const { markers, event } = this.#sim.readEvent();
      items.push(
        event === undefined
          ? { kind: "end", lead: markers }
          : { kind: "event", lead: markers, event },
      );
    }
  }

  /** The markers right after an event item (read after its last piece is applied). */
  trailingOf(item: EventItem): readonly Marker[] {
    if (item.trailing !== undefined) return item.trailing;
    if (this.#error !== undefined) throw this.#error;
    try {
      item.trailing = this.#sim.readMarkers();
    } catch (e) {
      this.#error = e;
      throw e;
    }
    return item.trailing;
  }

  /** Forgets the items before index `first` (no kept position needs them). */
  dropBefore(first: number): void {
    for (let i = this.#from; i < first; i++) this.#items[i] = undefined;
    if (first > this.#from) this.#from = first;
  }
}
