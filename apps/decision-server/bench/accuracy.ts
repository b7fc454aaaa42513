/**
 * Accuracy and calibration of every model on the whole `test` split of every bundled dataset (which no
 * checkpoint trained on): accuracy next to the majority-class rate, mean top confidence, log-loss.
 *
 *   node --import tsx bench/accuracy.ts
 */

import { listDatasets, loadDataset } from "@decision-workbench/datasets";
import { recordResults } from "../../../scripts/bench-results.mjs";
import { loadCheckpoints } from "../src/bayes/checkpoints.js";
import { targetsOf } from "../src/bayes/targets.js";
import { buildRegistry } from "../src/models/registry.js";
import { StateView } from "../src/models/state-view.js";
import type { Question } from "../src/request/types.js";

recordResults(import.meta.url, "accuracy and calibration of every model");

const NS =
  "The input does not state it: the facts this question needs are missing, and nothing given settles it.";
const registry = buildRegistry(await loadCheckpoints());
const models = ["lexical", "bayes-1", "bayes-2"].map((name) => registry.resolve(name)!);

type Opt = string | { name: string; description?: string };
const nameOf = (o: Opt) => (typeof o === "string" ? o : o.name);
const descOf = (o: Opt) => (typeof o === "string" ? null : (o.description ?? null));

console.log(
  "target                                   model     n   majority  accuracy  confidence  log-loss",
);
for (const info of listDatasets()) {
  const ds = await loadDataset(info.name);
  const test = ds.examples.filter((e) => e.split === "test");
  const views = test.map((e) => new StateView(e.state));
  for (const item of ds.task.items) {
    const specs = targetsOf(item);
    specs.forEach((spec, j) => {
      // The question the scorer sends for this target.
      let q: Question;
      if (spec.key.startsWith("choice|")) {
        const opts = item.kind === "score" ? (item.levels ?? []) : (item.options ?? []);
        const options =
          item.kind === "yesno"
            ? spec.classes.map((c, k) => ({ name: c, description: k < 2 ? descOf(opts[k] ?? c) : NS }))
            : spec.classes.map((c, k) => ({ name: c, description: k < opts.length ? descOf(opts[k]) : NS }));
        q = { id: "q", type: "choice", instructions: item.question, options };
      } else if (spec.key.startsWith("option|")) {
        const o = (item.options ?? [])[j];
        const d = descOf(o);
        q = {
          id: "q",
          type: "noul",
          instructions: `${item.question} Does the option '${nameOf(o)}'${d ? ` (${d})` : ""} apply?`,
          options: [],
        };
      } else if (spec.key.startsWith("ns|")) {
        q = {
          id: "q",
          type: "noul",
          instructions: `${item.question} Is the answer not stated in the input? ${NS}`,
          options: [],
        };
      } else {
        q = { id: "q", type: "noul", instructions: item.question, options: [] };
      }
      const gold = test.map((e) => spec.classOf(e.labels[item.name]));
      const counts = new Map<number, number>();
      for (const g of gold) if (g >= 0) counts.set(g, (counts.get(g) ?? 0) + 1);
      const n = [...counts.values()].reduce((a, b) => a + b, 0);
      const majority = Math.max(...counts.values()) / n;
      for (const model of models) {
        let right = 0;
        let confidence = 0;
        let nll = 0;
        test.forEach((_, i) => {
          if (gold[i] < 0) return;
          const p = model.predict(views[i], q, false).probs;
          const probs = q.type === "noul" ? [p[0], 1 - p[0]] : p;
          let best = 0;
          for (let k = 1; k < probs.length; k++) if (probs[k] > probs[best]) best = k;
          if (best === gold[i]) right++;
          confidence += probs[best];
          nll -= Math.log(Math.max(probs[gold[i]], 1e-6));
        });
        console.log(
          `${`${ds.task.name}/${spec.label}`.padEnd(40)} ${model.name.padEnd(8)} ${String(n).padStart(5)}   ${majority.toFixed(3)}     ${(right / n).toFixed(3)}     ${(confidence / n).toFixed(3)}      ${(nll / n).toFixed(3)}`,
        );
      }
    });
  }
}
