// A packed chunk's example ids are read only when asked for: a report reads a chunk's typed arrays and never its
// ids, and a chunk packed before ids had their own section (in its header) still reads back whole.
import { describe, expect, it } from "vitest";
import { ExampleIds } from "../src/storage/example-ids.js";
import { decodeColumns, joinColumns, packChunks } from "../src/storage/item-columns.js";
import type { ItemValues } from "../src/storage/item-values.js";

/** `n` decisions of a two-option item, example ids `e0`..; split by ordinal modulo 3. */
function values(n: number, from = 0): ItemValues[] {
  return Array.from({ length: n }, (_, t) => {
    const i = from + t;
    const p = 0.5 + (i % 50) / 100;
    return {
      ordinal: i,
      exampleId: `e${i}`,
      split: i % 3,
      status: 0,
      servedBy: i % 2 ? "m-1" : null,
      confidence: p,
      gold: i % 4 === 0 ? 1 : 0,
      answer: 0,
      probs: Buffer.from(new Float64Array([p, 1 - p]).buffer),
    };
  });
}

/** The header and the ids section of a chunk, and where its typed arrays start. */
function sections(chunk: Buffer) {
  const length = chunk.readUInt32LE(0);
  const header = JSON.parse(chunk.toString("utf8", 4, 4 + length));
  const idsAt = 4 + length;
  return { header, idsAt, arraysAt: Math.ceil((idsAt + header.idsBytes) / 8) * 8 };
}

/** The same chunk as packed before ids had a section of their own: the ids in its header. */
function earlierLayout(chunk: Buffer): Buffer {
  const { header, idsAt, arraysAt } = sections(chunk);
  const { idsBytes, ...rest } = header;
  const ids = JSON.parse(chunk.toString("utf8", idsAt, idsAt + idsBytes));
  const text = Buffer.from(JSON.stringify({ ...rest, exampleIds: ids }), "utf8");
  const start = Math.ceil((4 + text.length) / 8) * 8;
  const out = Buffer.alloc(start + chunk.length - arraysAt);
  out.writeUInt32LE(text.length, 0);
  text.copy(out, 4);
  chunk.copy(out, start, arraysAt);
  return out;
}

describe("a chunk's example ids", () => {
  it("are not read until asked for: damaged ids fail then, with a clear error, and nothing before", () => {
    const [chunk] = packChunks(2, values(100));
    const { idsAt } = sections(chunk);
    const damaged = Buffer.from(chunk);
    damaged.write("}}}}", idsAt + 1, "utf8");
    const c = decodeColumns(damaged);
    expect(c.n).toBe(100);
    expect(c.exampleIds.length).toBe(100);
    expect(Array.from(c.confidence.subarray(0, 3))).toEqual([0.5, 0.51, 0.52]);
    const test = joinColumns(2, [c], [2]);
    expect(test.n).toBe(33);
    expect(Array.from(test.ordinal.subarray(0, 3))).toEqual([2, 5, 8]);
    expect(() => test.exampleIds.list()).toThrow(/example ids/);
    expect(decodeColumns(chunk).exampleIds.at(99)).toBe("e99");
  });

  it("read back the same from chunks of either layout, joined, filtered and reordered", () => {
    const chunks = [...packChunks(2, values(50, 50)), ...packChunks(2, values(50))];
    const earlier = chunks.map(earlierLayout);
    expect(sections(earlier[0]).header.exampleIds).toHaveLength(50);
    for (const parts of [chunks, earlier, [chunks[0], earlier[1]]]) {
      const joined = joinColumns(2, parts.map(decodeColumns), [0, 1]);
      const wanted = values(100).filter((v) => v.split !== 2);
      expect(joined.exampleIds.list()).toEqual(wanted.map((v) => v.exampleId));
      expect(Array.from(joined.ordinal)).toEqual(wanted.map((v) => v.ordinal));
      expect(joined.servedNames[joined.served[1]]).toBe("m-1");
    }
  });

  it("follow their rows when a single part out of run order is put in order", () => {
    const [backwards] = packChunks(2, values(20).reverse());
    const sorted = joinColumns(2, [decodeColumns(backwards)]);
    expect(Array.from(sorted.ordinal)).toEqual([...Array(20).keys()]);
    expect(sorted.exampleIds.list()).toEqual(values(20).map((v) => v.exampleId));
    expect(Array.from(sorted.confidence.subarray(0, 2))).toEqual([0.5, 0.51]);
  });

  it("are joined only from parts of one row width: parts that disagree are refused, not misread", () => {
    const [two] = packChunks(2, values(10));
    const three = values(10, 10).map((v) => ({
      ...v,
      probs: Buffer.from(new Float64Array([0.2, 0.3, 0.5]).buffer),
    }));
    const [wide] = packChunks(3, three);
    expect(() => joinColumns(2, [decodeColumns(two), decodeColumns(wide)])).toThrow(/disagree.*\(3 and 2\)/);
  });

  it("compose picks and joins without making the lists, and make each once", () => {
    let made = 0;
    const counted = ExampleIds.parsed(3, Buffer.from('["a","b","c"]'));
    const list = counted.list.bind(counted);
    counted.list = () => {
      made++;
      return list();
    };
    const joined = ExampleIds.joined([
      { ids: counted, rows: [2, 0] },
      { ids: ExampleIds.of(["d"]), rows: null },
    ]);
    const picked = joined.pick([2, 0]);
    expect(made).toBe(0);
    expect(picked.length).toBe(2);
    expect(picked.list()).toEqual(["d", "c"]);
    expect(joined.at(1)).toBe("a");
    expect(made).toBe(1);
  });
});
