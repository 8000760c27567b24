// The trace reader's fast path for the common row: no quotes, no padding, and
// every column it reads (but the queue) a plain run of at most 15 digits.
// Such a row is read straight from the file's text, without slicing a string
// per line or per field; any other row returns false and goes through the
// general path, which gives the same values or the error. (Measured: reading
// HPC2N's 202,876 rows took 180 ms through the general path.)

/** Positions of the queue field, when the row has one. */
export interface QueueSpan {
  start: number;
  end: number;
}

// More digits than this could pass 2^53 - 1; the general path checks them.
const MAX_DIGITS = 15;

/**
 * Reads `text[start, end)` (one line, end-of-line padding already cut) into
 * `nums` by slot (`slotOf[field]`, -1 for a column not read), with the queue
 * slot's field as a span instead of a number. Returns false, having written
 * nothing the caller relies on, when the row is not plain or does not have
 * exactly `fieldCount` fields.
 */
export function readPlainRow(
  text: string,
  start: number,
  end: number,
  slotOf: Int8Array,
  fieldCount: number,
  queueSlot: number,
  nums: number[],
  queue: QueueSpan,
): boolean {
  let f = 0;
  let i = start;
  for (;;) {
    const slot = f < slotOf.length ? slotOf[f] : -1;
    const from = i;
    if (slot >= 0 && slot !== queueSlot) {
      let x = 0;
      for (; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c === 44) break;
        if (c < 48 || c > 57) return false;
        x = x * 10 + (c - 48);
      }
      const digits = i - from;
      if (digits === 0 || digits > MAX_DIGITS) return false;
      nums[slot] = x;
    } else {
      for (; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c === 44) break;
        // Quotes and padding need the general path's rules.
        if (c === 34 || c === 32 || c === 9 || c === 13) return false;
      }
      if (slot >= 0) {
        if (i === from) return false;
        queue.start = from;
        queue.end = i;
      }
    }
    f++;
    if (i >= end) return f === fieldCount;
    if (f >= fieldCount) return false;
    i++; // the comma
  }
}
