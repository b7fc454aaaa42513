// An answered example's loose row holds every item's values one after the other: each item reads back its own,
// whatever the items before it hold (label lists, probabilities or neither), and an item the row lacks reads none.
import { describe, expect, it } from "vitest";
import type { ItemSpec } from "../../src/analysis/item-spec.js";
import {
  type DecisionFields,
  decodeExampleValues,
  encodeExampleValues,
  itemValues,
} from "../../src/storage/item-values.js";

const specs: ItemSpec[] = [
  { name: "topics", kind: "multi", options: ["refund", "delivery", "password"], notStated: true },
  { name: "urgent", kind: "yesno", options: ["yes", "no"], notStated: true },
  { name: "team", kind: "choice", options: ["billing", "shipping", "account"], notStated: false },
];
const example = { ordinal: 41, exampleId: "t-41", split: "calibration" as const, servedBy: "m-2" };

describe("a loose row of three items", () => {
  it("gives each item back its own values, stepping over the others", () => {
    const decisions: DecisionFields[] = [
      {
        gold: ["refund", "password"],
        status: "answered",
        answer: ["refund"],
        confidence: 0.8,
        probabilities: { refund: 0.9, delivery: 0.2, password: 0.4, "not stated": 0.05 },
      },
      { gold: "not stated", status: "unknown", answer: null, confidence: null, probabilities: null },
      {
        gold: "shipping",
        status: "answered",
        answer: "billing",
        confidence: 0.6,
        probabilities: { billing: 0.6, shipping: 0.3, account: 0.1 },
      },
    ];
    const values = decisions.map((d, i) => itemValues(specs[i], example, d));
    // stored in another order than the items': the row names each item's index
    const order = [2, 0, 1];
    const data = encodeExampleValues(order.map((index) => ({ index, values: values[index] })));
    const row = { ordinal: 41, exampleId: "t-41", split: 1, servedBy: "m-2", data };
    for (const index of [0, 1, 2]) {
      const back = decodeExampleValues(row, index);
      expect(back, `item ${index}`).toEqual(values[index]);
    }
    expect(values[0].gold).toEqual(Buffer.from([0, 2]));
    expect(values[1]).toMatchObject({ status: 1, gold: 2, answer: null, probs: null, confidence: null });
    expect(new Float64Array(new Uint8Array(values[2].probs as Uint8Array).buffer)).toEqual(
      new Float64Array([0.6, 0.3, 0.1]),
    );
    expect(decodeExampleValues(row, 3)).toBeUndefined();
  });
});
