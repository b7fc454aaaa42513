// The rows of a file checked row by row (checkJsonl, checkCsv): what is kept of each valid row to read it again.

import type { Example, Split } from "../types.js";
import { formatBytes } from "./errors.js";

/** A file checked by `checkJsonl` or `checkCsv`: every row valid. */
export interface CheckedFile {
  ok: true;
  /** The examples' ids and splits, in file order. */
  ids: string[];
  splits: Split[];
  /** The k-th example (file order), read again from its line or record. */
  example(k: number): Example;
}

/** The largest offset a row's start or end is kept at (Int32Array). */
const MAX_OFFSET = 0x7fffffff;

/** The valid rows of a file as it is checked: ids, splits and each row's start and end offsets. */
export class KeptRows {
  private readonly ids: string[] = [];
  private readonly splits: Split[] = [];
  private bounds = new Int32Array(1024);

  add(example: Example, start: number, end: number): void {
    if (end > MAX_OFFSET) {
      throw new RangeError(
        `a file over ${formatBytes(MAX_OFFSET)} cannot be checked row by row; split it into smaller files`,
      );
    }
    const k = this.ids.length;
    if (2 * k + 2 > this.bounds.length) {
      const grown = new Int32Array(this.bounds.length * 2);
      grown.set(this.bounds);
      this.bounds = grown;
    }
    this.bounds[2 * k] = start;
    this.bounds[2 * k + 1] = end;
    this.ids.push(example.id);
    this.splits.push(example.split);
  }

  /** The checked file, `read(start, end)` reading a row's example again (undefined: not an example). */
  checked(read: (start: number, end: number) => Example | undefined): CheckedFile {
    const { ids, splits, bounds } = this;
    const example = (k: number): Example => {
      const e = k >= 0 && k < ids.length ? read(bounds[2 * k], bounds[2 * k + 1]) : undefined;
      if (e === undefined || e.id !== ids[k]) {
        throw new Error(
          `row ${k} of ${ids.length} read again is not the example ${JSON.stringify(ids[k])} checked`,
        );
      }
      return e;
    };
    return { ok: true, ids, splits, example };
  }
}
