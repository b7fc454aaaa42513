// @vitest-environment node
import { describe, expect, it } from "vitest";
import {
  calibrationGroups,
  checkVerdict,
  fileErrors,
  formatFileError,
  parseCalibrationText,
  placeIn,
} from "../src/transforms/check";
import { calibration, runCheck } from "./fixtures";

describe("parseCalibrationText", () => {
  it("passes a JSON object on as it is (the API checks the schema)", () => {
    expect(parseCalibrationText('{"schema": "x", "questions": {}}')).toEqual({
      ok: true,
      file: { schema: "x", questions: {} },
    });
  });

  it("says where the JSON breaks", () => {
    // a comma missing after the schema line
    const r = parseCalibrationText('{\n  "schema": "decision-workbench/calibration@1"\n  "source": {}\n}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^The file is not valid JSON \(line 3, column 3\): /);
  });

  it("asks for a file when there is nothing, and refuses what is not an object", () => {
    const empty = parseCalibrationText("  \n");
    expect(!empty.ok && empty.error).toMatch(/Paste or choose a calibration file/);
    const list = parseCalibrationText("[1, 2]");
    expect(!list.ok && list.error).toMatch(
      /JSON object with schema, created_at, source and questions; this is a list/,
    );
    const n = parseCalibrationText("42");
    expect(!n.ok && n.error).toMatch(/this is a number\.$/);
  });
});

describe("fileErrors and formatFileError", () => {
  it("keeps the {path, message} problems in the API's order", () => {
    const errs = fileErrors([
      { path: "schema", message: "expected decision-workbench/calibration@1" },
      "not a detail",
      { line: 3, message: "a dataset error" },
      { path: "questions.species.options", message: "must be a list of strings" },
    ]);
    expect(errs.map(formatFileError)).toEqual([
      "schema: expected decision-workbench/calibration@1",
      "questions.species.options: must be a list of strings",
    ]);
    expect(formatFileError({ path: "", message: "not an object" })).toBe("not an object");
  });
});

describe("calibrationGroups", () => {
  it("offers imported files, then this run's, then other runs' calibrations of the run's dataset, newest first", () => {
    const list = [
      calibration("cal_other_run", "run_b", { createdAt: "2026-11-21T10:01:00Z" }),
      calibration("cal_mine_old", "run_a", { createdAt: "2026-11-21T10:02:00Z" }),
      calibration("cal_imported", null, { createdAt: "2026-11-21T10:03:00Z" }),
      calibration("cal_mine_new", "run_a", { createdAt: "2026-11-21T10:04:00Z" }),
      calibration("cal_spam", null, { dataset: "spam-assassin" }),
    ];
    const groups = calibrationGroups(list, { id: "run_a", dataset: "penguins" });
    expect(groups.map((g) => [g.label, g.options.map((o) => o.id)])).toEqual([
      ["Imported files", ["cal_imported"]],
      ["Fitted on this run", ["cal_mine_new", "cal_mine_old"]],
      ["Fitted on other runs", ["cal_other_run"]],
    ]);
    expect(groups[0].options[0].label).toMatch(/^cal_imported · imported · served by bayes-2 · /);
    expect(groups[2].options[0].label).toMatch(/^cal_other_run · run_b · /);
  });

  it("is empty when nothing was fitted or imported for the dataset", () => {
    expect(calibrationGroups([calibration("c", null, { dataset: "x" })], { id: "r", dataset: "y" })).toEqual(
      [],
    );
  });
});

describe("checkVerdict", () => {
  it("places a value against its interval", () => {
    expect(placeIn(0.02, [0.01, 0.03])).toBe("inside");
    expect(placeIn(0.04, [0.01, 0.03])).toBe("above");
    expect(placeIn(0.005, [0.01, 0.03])).toBe("below");
    expect(placeIn(null, [0.01, 0.03])).toBe("no interval");
    expect(placeIn(0.02, null)).toBe("no interval");
  });

  it("fails with the API's reasons, names the served-model change and the question outside its interval", () => {
    const v = checkVerdict(runCheck(true), ["bayes-2"]);
    expect(v.ok).toBe(false);
    expect(v.title).toBe("Refit the calibration: 2 reasons below.");
    expect(v.servedModel).toEqual({
      changed: true,
      text: "Changed: the file was fitted on answers of bayes-2; this run was served by bayes-1.",
    });
    expect(v.fingerprintChanged).toBe(false);
    expect(v.reasons).toHaveLength(2);
    const sex = v.rows.find((r) => r.question === "sex");
    expect(sex).toMatchObject({ ok: false, ece: "2.2%", eceInterval: "0.0–1.0%", ecePlace: "above" });
    expect(v.rows.find((r) => r.question === "species")).toMatchObject({ ok: true, ecePlace: "inside" });
    expect(v.skipped).toEqual(["body_mass"]);
  });

  it("passes when the served model is unchanged and every question is inside", () => {
    const v = checkVerdict(runCheck(false), ["bayes-2"]);
    expect(v.ok).toBe(true);
    expect(v.title).toBe("The calibration still holds for this run.");
    expect(v.servedModel).toEqual({
      changed: false,
      text: "Unchanged: bayes-2 served this run, as in the file.",
    });
    expect(v.rows.every((r) => r.ok && r.errorPlace === "inside")).toBe(true);
  });
});
