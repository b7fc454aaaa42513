/**
 * An item's example ids, made only when read: a report never reads them (a comparison or a page of examples
 * does), so a packed chunk keeps its ids as JSON text that is parsed the first time they are asked for, and the
 * joins and picks of the analysis compose lists without making them. Once made, a list is kept.
 */
export class ExampleIds {
  private made: string[] | undefined;

  private constructor(
    readonly length: number,
    /** Dropped once the list is made, with whatever it was made from. */
    private make: (() => string[]) | undefined,
  ) {}

  /** Ids already made. */
  static of(ids: string[]): ExampleIds {
    const out = new ExampleIds(ids.length, undefined);
    out.made = ids;
    return out;
  }

  /** `length` ids, the JSON array `json` (UTF-8 bytes) once read. */
  static parsed(length: number, json: Uint8Array): ExampleIds {
    return new ExampleIds(length, () => {
      const damaged = (why: string) =>
        new Error(`a stored chunk's example ids are damaged (${why}); ${length} expected`);
      let ids: unknown;
      try {
        ids = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString("utf8"));
      } catch (err) {
        throw damaged((err as Error).message);
      }
      if (!Array.isArray(ids) || ids.length !== length) throw damaged("not a list of that length");
      return ids as string[];
    });
  }

  /** The ids of several lists one after the other, of each only the rows `rows` (all of them when null). */
  static joined(parts: readonly { ids: ExampleIds; rows: ArrayLike<number> | null }[]): ExampleIds {
    const length = parts.reduce((s, p) => s + (p.rows ? p.rows.length : p.ids.length), 0);
    return new ExampleIds(length, () => {
      const out: string[] = new Array(length);
      let at = 0;
      for (const { ids, rows } of parts) {
        const list = ids.list();
        if (rows === null) for (let i = 0; i < list.length; i++) out[at++] = list[i];
        else for (let t = 0; t < rows.length; t++) out[at++] = list[rows[t]];
      }
      return out;
    });
  }

  /** The ids of the rows `rows`, in that order. */
  pick(rows: ArrayLike<number>): ExampleIds {
    return ExampleIds.joined([{ ids: this, rows }]);
  }

  /** Every id, in row order. */
  list(): string[] {
    if (!this.made) {
      this.made = (this.make as () => string[])();
      this.make = undefined;
    }
    return this.made;
  }

  /** The id of row `row`. */
  at(row: number): string {
    return this.list()[row];
  }
}
