// A multi-label item's fit tells the truth per label: each label's ECE and NLL before and after on the evaluation
// split (n and intervals) next to its threshold, in the response, the file and the workbench fit text; the escalation
// line says what share is answered alone and the error that buys.
import { classwiseEce, validateCalibrationFile } from "@decision-workbench/calibration";
import type { Task } from "@decision-workbench/datasets";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calibrationFile, fitItem } from "../../src/analysis/calibrate.js";
import { taskSpecs } from "../../src/analysis/item-spec.js";
import { itemData, restrictRows } from "../../src/analysis/matrix.js";
import { candidatesText } from "../../src/cli/analysis-commands.js";
import type { Calibration } from "../../src/shapes/calibrations.js";
import type { PredictionRow } from "../../src/storage/types.js";
import { decisionRows, startServer } from "./fixtures.js";

let spam: { rows: PredictionRow[]; task: Task; hash: string; fingerprint: string; endpoint: string };
let close: () => Promise<void>;

beforeAll(async () => {
  const server = await startServer();
  close = server.close;
  spam = await decisionRows({ url: server.url, dataset: "spam-assassin", limit: 400 });
});

afterAll(async () => {
  await close?.();
});

function halves() {
  const spec = taskSpecs(spam.task).find((s) => s.name === "properties")!;
  const d = itemData(
    spec,
    spam.rows.filter((r) => r.item === "properties"),
  );
  const half = Math.floor(d.status.length / 2);
  return { fit: restrictRows(d, (i) => i < half), evaluation: restrictRows(d, (i) => i >= half) };
}

describe("multi-label fit", () => {
  it("reports each label's ECE and NLL before and after on the evaluation split, and the fit text says them", () => {
    const { fit, evaluation } = halves();
    const f = fitItem(fit, evaluation, { method: "platt", targetRisk: 0.2, resamples: 100 });
    const q = f.question;
    expect(q.label_metrics?.map((m) => m.label)).toEqual(fit.columns);
    for (const [j, m] of q.label_metrics!.entries()) {
      expect(m.n).toBe(evaluation.m);
      // before: the label's own probabilities on the evaluation rows, against its outcomes
      const column = {
        probs: Float64Array.from({ length: evaluation.m }, (_, i) => evaluation.probs[i * evaluation.k + j]),
        k: 1,
        labels: Uint8Array.from({ length: evaluation.m }, (_, i) => evaluation.labels[i * evaluation.k + j]),
      };
      const plugin = classwiseEce(column);
      // the bias-corrected point lies at or below the plug-in, inside its interval
      expect(m.before.ece[0]).toBeLessThanOrEqual(plugin + 1e-12);
      for (const e of [m.before.ece, m.after.ece, m.before.nll, m.after.nll]) {
        expect(e[1]).toBeLessThanOrEqual(e[0]);
        expect(e[0]).toBeLessThanOrEqual(e[2]);
      }
    }
    const file = calibrationFile(
      {
        fingerprint: spam.fingerprint,
        endpoint: spam.endpoint,
        model: "workbench-latest",
        served_by: ["bayes-2"],
        dataset: { name: "spam-assassin", sha256: spam.hash },
        fit_split: "calibration",
        eval_split: "test",
      },
      { properties: f },
    );
    expect(validateCalibrationFile(file).ok).toBe(true);
    expect(file.questions.properties.label_metrics).toEqual(q.label_metrics);
    const cal = {
      file,
      candidates: { properties: f.candidates },
      selection: { properties: f.selection },
      warnings: { properties: f.warnings },
      fit: {
        fitSplit: "calibration",
        evalSplit: "test",
        selectionSplit: null,
        method: "platt",
        select: "nll",
        folds: 5,
        targetRisk: 0.2,
        conservative: false,
        estimatedBy: f.estimatedBy,
        caveat: null,
        n: { properties: f.n },
      },
      skipped: [],
    } as unknown as Calibration;
    const text = candidatesText(cal);
    expect(text).toContain("per label (threshold chosen out-of-fold on calibration; F1, ECE and NLL on test");
    const first = q.label_metrics![0];
    const t = q.label_thresholds![0];
    const four = (x: number) => x.toFixed(4);
    expect(text).toContain(
      `    ${first.label}: n ${first.n}, threshold ${t.threshold.toFixed(3)}, F1 ${four(t.f1[0])} [${four(t.f1[1])}, ${four(t.f1[2])}], ECE ${four(first.before.ece[0])} [${four(first.before.ece[1])}, ${four(first.before.ece[2])}] -> ${four(first.after.ece[0])}`,
    );
    const mc = q.threshold!.min_confidence;
    if (mc === null) expect(text).toMatch(/no threshold keeps the error <= 0.2: escalate everything/);
    else {
      const a = q.answered!;
      const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
      expect(text).toContain(
        `  escalate below ${mc.toFixed(3)}: ${pct(a.share)} answered alone (n = ${a.n}), error ${pct(a.error[0])} [${pct(a.error[1])}, ${pct(a.error[2])}] (Clopper-Pearson); chosen for error <= 0.2 on fit split, out-of-fold`,
      );
    }
  });

  it("one split: the per-label metrics are out-of-fold estimates on the fit split", () => {
    const { fit } = halves();
    const f = fitItem(fit, null, { method: "platt", resamples: 100 });
    expect(f.question.metrics?.estimated_by).toBe("cross-fit");
    expect(f.question.label_metrics?.every((m) => m.n === fit.m)).toBe(true);
  });
});
