import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { CheckForm } from "../src/components/CheckForm";
import { CheckVerdict } from "../src/components/CheckVerdict";
import { calibrationGroups } from "../src/transforms/check";
import { calibration, runCheck } from "./fixtures";

afterEach(cleanup);

const RUN = { id: "run_a", dataset: "penguins" };
const GROUPS = calibrationGroups(
  [
    calibration("cal_fitted", "run_a", { createdAt: "2026-11-21T10:01:00Z" }),
    calibration("cal_imported", null, { createdAt: "2026-11-21T10:02:00Z" }),
  ],
  RUN,
);

describe("CheckForm", () => {
  it("offers imported and fitted calibrations in groups, and checks on the test split by default", () => {
    const onCheck = vi.fn();
    render(<CheckForm groups={GROUPS} splits={["calibration", "test"]} onCheck={onCheck} />);
    const picker = screen.getByLabelText("Calibration");
    const groups = within(picker).getAllByRole("group");
    expect(groups.map((g) => g.getAttribute("label"))).toEqual(["Imported files", "Fitted on this run"]);
    expect((screen.getByLabelText("Check on") as HTMLSelectElement).value).toBe("test");
    fireEvent.click(screen.getByRole("button", { name: "Check" }));
    expect(onCheck).toHaveBeenCalledWith({ calibrationId: "cal_imported", split: "test" });
  });

  it("checks the calibration and split picked", () => {
    const onCheck = vi.fn();
    render(<CheckForm groups={GROUPS} splits={["calibration", "test"]} onCheck={onCheck} />);
    fireEvent.change(screen.getByLabelText("Calibration"), { target: { value: "cal_fitted" } });
    fireEvent.change(screen.getByLabelText("Check on"), { target: { value: "all" } });
    fireEvent.click(screen.getByRole("button", { name: "Check" }));
    expect(onCheck).toHaveBeenCalledWith({ calibrationId: "cal_fitted", split: "all" });
  });

  it("picks a file just imported", () => {
    const onCheck = vi.fn();
    const { rerender } = render(<CheckForm groups={GROUPS} splits={["test"]} onCheck={onCheck} />);
    rerender(
      <CheckForm
        groups={GROUPS}
        splits={["test"]}
        preferred={{ calibrationId: "cal_fitted" }}
        onCheck={onCheck}
      />,
    );
    expect((screen.getByLabelText("Calibration") as HTMLSelectElement).value).toBe("cal_fitted");
  });

  it("says what to do when there is nothing to check against", () => {
    render(<CheckForm groups={[]} splits={["test"]} onCheck={vi.fn()} />);
    expect(screen.getByText("No calibration of this dataset to check against")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Check" })).toBeNull();
  });
});

/** A file fitted on answers of bayes-2, escalating sex below a confidence the API writes unrounded. */
const FILE_B2 = {
  source: { served_by: ["bayes-2"] },
  questions: { sex: { threshold: { min_confidence: 0.9494938803943613 } } },
};

describe("CheckForm refused", () => {
  it("puts a calibration that does not fit the run on the Calibration field, rewritten, and focuses it", () => {
    const error = new ApiError(
      422,
      "calibration_mismatch",
      "question species: the file has choice options [a, b], the run's item has choice options [Adelie, Gentoo]",
    );
    render(<CheckForm groups={GROUPS} splits={["test"]} onCheck={vi.fn()} error={error} />);
    const picker = screen.getByLabelText("Calibration");
    expect(picker.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(picker);
    const text = screen.getByRole("alert").textContent ?? "";
    expect(text).toContain(
      "This calibration does not fit the run's items (species has the options a, b in the file and Adelie, Gentoo in the run)",
    );
    expect(text.replace(/Technical details.*/s, "")).not.toMatch(/\[|calibration_mismatch|422/);
  });
});

describe("CheckVerdict", () => {
  it("shows a failure: the served model that changed, the reasons, the question above its interval", () => {
    render(<CheckVerdict report={runCheck(true)} calibrationId="cal_imported" file={FILE_B2} />);
    const verdict = screen.getByRole("region", { name: "Check result" });
    expect(verdict.getAttribute("data-verdict")).toBe("fail");
    expect(screen.getByRole("status").textContent).toMatch(
      /^✗ Fail Refit the calibration: 2 reasons below\./,
    );
    expect(verdict.textContent).toContain(
      "Changed: the file was fitted on answers of bayes-2; this run was served by bayes-1.",
    );
    const reasons = within(verdict)
      .getAllByRole("listitem")
      .map((li) => li.textContent);
    // the API's raw floats and bracketed lists rewritten, the numbers formatted
    expect(reasons).toEqual([
      "This run was answered by bayes-1, the file was fitted on answers of bayes-2: the service swapped its weights.",
      "sex: the calibrated ECE, 2.2%, is above the file's interval (0.0–1.0%).",
    ]);
    const sex = screen.getByRole("row", { name: /^sex/ });
    expect(
      within(sex)
        .getAllByRole("cell")
        .map((c) => c.textContent),
    ).toEqual([
      "90",
      "2.2% · above the interval",
      "0.0–1.0%",
      "1.1% · inside",
      "0.0–6.0%",
      "98.0%",
      "✗ fail",
    ]);
    expect(verdict.textContent).toContain("Not checked (the run has no usable answers for them): body_mass.");
  });

  it("shows a pass with the served model unchanged", () => {
    render(<CheckVerdict report={runCheck(false)} calibrationId="cal_fitted" file={FILE_B2} />);
    const verdict = screen.getByRole("region", { name: "Check result" });
    expect(verdict.getAttribute("data-verdict")).toBe("pass");
    expect(screen.getByRole("status").textContent).toMatch(
      /^✓ Pass The calibration still holds for this run\./,
    );
    expect(verdict.textContent).toContain("Unchanged: bayes-2 served this run, as in the file.");
    expect(screen.queryByText("Why it fails")).toBeNull();
    expect(within(verdict).getAllByText("✓ pass")).toHaveLength(2);
  });

  it("words an answered-alone error above its interval with the threshold to 3 significant digits", () => {
    const report = runCheck(true);
    report.details = [
      {
        code: "answered-error-outside",
        question: "sex",
        message:
          "sex: answered-alone error at confidence >= 0.9494938803943613 0.3904 is above the file's interval [0.0000, 0.2000]",
      },
    ];
    report.questions.sex = {
      ...report.questions.sex,
      answeredError: 0.3904,
      answeredErrorInterval: [0, 0.2],
    };
    render(<CheckVerdict report={report} calibrationId="cal_fitted" file={FILE_B2} />);
    const verdict = screen.getByRole("region", { name: "Check result" });
    expect(within(verdict).getAllByRole("listitem")[0].textContent).toBe(
      "sex: the error of the answers given alone (answers with confidence 0.949 or more), 39.0%, is above the file's interval (0.0–20.0%).",
    );
    expect(verdict.textContent).not.toMatch(/0\.94949|\[bayes/);
  });
});
