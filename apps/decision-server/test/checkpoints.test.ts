import {
  type Dataset,
  type Item,
  listDatasets,
  loadDataset,
  type Option,
} from "@decision-workbench/datasets";
import { beforeAll, describe, expect, it } from "vitest";
import type { DecisionServerHandle } from "../src/index.js";
import { NS, post, server } from "./helpers.js";

/** At most this many test-split examples per dataset, spread evenly over it (all of the small ones). */
const PER_DATASET = 400;

let handle: DecisionServerHandle;
let datasets: Dataset[];

beforeAll(async () => {
  handle = await server();
  datasets = [];
  for (const info of listDatasets()) datasets.push(await loadDataset(info.name));
});

const nameOf = (o: Option) => (typeof o === "string" ? o : o.name);
const descOf = (o: Option) => (typeof o === "string" ? null : (o.description ?? null));

/** The questions the scorer builds for an item (suffix -> question), per the lead's shapes. */
function questionsOf(item: Item): Record<string, Record<string, unknown>> {
  const criteria = (opts: Option[]) => Object.fromEntries(opts.map((o) => [nameOf(o), descOf(o)]));
  if (item.kind === "choice" || item.kind === "score") {
    const opts = (item.kind === "score" ? item.levels : item.options) ?? [];
    const c = criteria(opts);
    if (item.notStated) c["not stated"] = NS;
    return { "": { type: "choice", instructions: item.question, criteria: c } };
  }
  if (item.kind === "yesno") {
    if (!item.notStated) return { "": { type: "noul", instructions: item.question } };
    const [yes, no] = item.options ?? ["yes", "no"];
    return {
      "": {
        type: "choice",
        instructions: item.question,
        criteria: { yes: descOf(yes), no: descOf(no), "not stated": NS },
      },
    };
  }
  const out: Record<string, Record<string, unknown>> = {};
  (item.options ?? []).forEach((o, j) => {
    const d = descOf(o);
    out[`__${j}`] = {
      type: "noul",
      instructions: `${item.question} Does the option '${nameOf(o)}'${d ? ` (${d})` : ""} apply?`,
    };
  });
  if (item.notStated) {
    out.__ns = {
      type: "noul",
      instructions: `${item.question} Is the answer not stated in the input? ${NS}`,
    };
  }
  return out;
}

/** One scored target: gold class and predicted probabilities over its classes. */
interface Outcome {
  gold: number;
  probs: number[];
}

type Answer = { probabilities?: Record<string, number>; noul?: number };

/** Outcomes per target ("<dataset>/<item>" or "<dataset>/<item>['<option>']") for one model. */
async function evaluate(model: string): Promise<Map<string, Outcome[]>> {
  const outcomes = new Map<string, Outcome[]>();
  const add = (key: string, o: Outcome) => {
    const list = outcomes.get(key) ?? [];
    list.push(o);
    outcomes.set(key, list);
  };
  for (const ds of datasets) {
    const all = ds.examples.filter((e) => e.split === "test");
    const stride = Math.ceil(all.length / PER_DATASET);
    const test = all.filter((_, n) => n % stride === 0);
    const replies = await Promise.all(
      test.map(async (example) => {
        const questions: Record<string, unknown> = {};
        ds.task.items.forEach((item, i) => {
          for (const [suffix, q] of Object.entries(questionsOf(item))) questions[`q${i}${suffix}`] = q;
        });
        const r = await post(handle, { model, state: example.state, questions });
        expect(r.status).toBe(200);
        return (r.json as { answers: Record<string, Answer> }).answers;
      }),
    );
    test.forEach((example, n) => {
      const answers = replies[n];
      ds.task.items.forEach((item, i) => {
        const gold = example.labels[item.name];
        if (gold === undefined) return;
        if (item.kind !== "multi") {
          const [q] = Object.values(questionsOf(item));
          if (q.type === "noul") {
            const p = answers[`q${i}`].noul as number;
            add(`${ds.task.name}/${item.name}`, {
              gold: gold === nameOf((item.options ?? ["yes"])[0]) ? 0 : 1,
              probs: [p, 1 - p],
            });
            return;
          }
          const names = Object.keys(q.criteria as object);
          const probs = answers[`q${i}`].probabilities as Record<string, number>;
          const wire = item.kind === "yesno" ? ["yes", "no", "not stated"] : names;
          const goldName =
            item.kind === "yesno"
              ? wire[[...(item.options ?? ["yes", "no"]).map(nameOf), "not stated"].indexOf(gold as string)]
              : gold;
          add(`${ds.task.name}/${item.name}`, {
            gold: names.indexOf(goldName as string),
            probs: names.map((k) => probs[k]),
          });
          return;
        }
        if (!Array.isArray(gold)) return;
        (item.options ?? []).forEach((o, j) => {
          const p = answers[`q${i}__${j}`].noul as number;
          add(`${ds.task.name}/${item.name}['${nameOf(o)}']`, {
            gold: gold.includes(nameOf(o)) ? 0 : 1,
            probs: [p, 1 - p],
          });
        });
      });
    });
  }
  return outcomes;
}

function argmax(xs: number[]): number {
  return xs.reduce((best, x, i) => (x > xs[best] ? i : best), 0);
}

function summary(list: Outcome[]) {
  const counts = new Map<number, number>();
  for (const o of list) counts.set(o.gold, (counts.get(o.gold) ?? 0) + 1);
  const chance = Math.max(...counts.values()) / list.length;
  const accuracy = list.filter((o) => argmax(o.probs) === o.gold).length / list.length;
  const confidence = list.reduce((a, o) => a + Math.max(...o.probs), 0) / list.length;
  const nll = list.reduce((a, o) => a - Math.log(Math.max(o.probs[o.gold], 1e-6)), 0) / list.length;
  return { chance, accuracy, confidence, nll, skill: (accuracy - chance) / (1 - chance) };
}

describe("trained checkpoints on the test split (never trained on)", () => {
  let latest: Map<string, Outcome[]>;
  let older: Map<string, Outcome[]>;
  beforeAll(async () => {
    latest = await evaluate("workbench-latest");
    older = await evaluate("bayes-1");
  }, 120_000);

  it("covers every item of every bundled dataset", () => {
    const items = datasets.flatMap((ds) =>
      ds.task.items.filter((i) => i.kind !== "multi").map((i) => `${ds.task.name}/${i.name}`),
    );
    for (const key of items) expect(latest.has(key), key).toBe(true);
  });

  it("beats the majority class on every target, removing a fifth of its errors or more with the latest version", () => {
    for (const [key, list] of latest) {
      const s = summary(list);
      expect(s.accuracy, `${key}: ${JSON.stringify(s)}`).toBeGreaterThan(s.chance);
      expect(s.skill, `${key}: ${JSON.stringify(s)}`).toBeGreaterThan(0.2);
    }
    for (const [key, list] of older) {
      const s = summary(list);
      expect(s.accuracy, `${key}: ${JSON.stringify(s)}`).toBeGreaterThan(s.chance);
    }
  });

  it("differs in calibration: bayes-1 is over-confident, the latest has the lower log-loss", () => {
    let gapOlder = 0;
    let gapLatest = 0;
    let nllOlder = 0;
    let nllLatest = 0;
    for (const [key, list] of latest) {
      const a = summary(list);
      const b = summary(older.get(key) ?? []);
      gapLatest += a.confidence - a.accuracy;
      gapOlder += b.confidence - b.accuracy;
      nllLatest += a.nll;
      nllOlder += b.nll;
    }
    expect(gapOlder).toBeGreaterThan(gapLatest);
    expect(gapOlder).toBeGreaterThan(0);
    expect(nllLatest).toBeLessThan(nllOlder);
  });
});

describe("the reply names the model that answered", () => {
  it("bayes-2 for its own questions, bayes-2+lexical when any fell back to the lexical model", async () => {
    const ds = datasets[0];
    const item = ds.task.items.find((i) => i.kind !== "multi");
    if (!item) throw new Error(`no single-answer item in ${ds.task.name}`);
    const own = questionsOf(item)[""];
    const foreign = {
      type: "choice",
      instructions: "Which colour is the sky over this text? (no checkpoint knows this question)",
      criteria: { blue: null, green: null },
    };
    const state = ds.examples[0].state;
    const modelOf = async (questions: Record<string, unknown>) => {
      const r = await post(handle, { model: "bayes-2", state, questions });
      expect(r.status, r.text).toBe(200);
      return (r.json as { model: string }).model;
    };
    expect(await modelOf({ own })).toBe("bayes-2");
    expect(await modelOf({ foreign })).toBe("bayes-2+lexical");
    expect(await modelOf({ own, foreign })).toBe("bayes-2+lexical");
  });
});
