import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { ImportCalibrationForm } from "../src/components/ImportCalibrationForm";
import { calibration } from "./fixtures";

afterEach(cleanup);

const FILE = calibration("cal_x", "run_a").file;

describe("ImportCalibrationForm", () => {
  it("lists every problem of an invalid file, one a line, and says nothing was imported", () => {
    const error = new ApiError(
      400,
      "invalid_calibration_file",
      "the calibration file is not valid: schema: …; questions.species.options: …",
      [
        {
          path: "schema",
          message: '"x" is not a calibration file schema; expected "decision-workbench/calibration@1"',
        },
        { path: "questions.species.options", message: "must be a non-empty list of distinct strings" },
      ],
    );
    render(<ImportCalibrationForm onSubmit={vi.fn()} error={error} />);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Not a valid calibration file: 2 problems. Nothing was imported.");
    expect(
      within(alert)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual([
      'schema: "x" is not a calibration file schema; expected "decision-workbench/calibration@1"',
      "questions.species.options: must be a non-empty list of distinct strings",
    ]);
  });

  it("shows another API error as it is, with its code", () => {
    render(
      <ImportCalibrationForm onSubmit={vi.fn()} error={new ApiError(413, "body_too_large", "over 1 MiB")} />,
    );
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("The calibration file was not imported");
    expect(alert.textContent).toContain("over 1 MiB");
    expect(alert.textContent).toContain("body_too_large");
  });

  it("checks the JSON before sending it, and ties the message to the field", () => {
    const onSubmit = vi.fn();
    render(<ImportCalibrationForm onSubmit={onSubmit} />);
    const field = screen.getByLabelText("Calibration file (JSON)");
    fireEvent.change(field, { target: { value: '{"schema": ' } });
    fireEvent.click(screen.getByRole("button", { name: "Import calibration file" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(field.getAttribute("aria-invalid")).toBe("true");
    const described = field.getAttribute("aria-describedby")?.split(" ") ?? [];
    expect(
      described.some((id) =>
        document.getElementById(id)?.textContent?.startsWith("The file is not valid JSON"),
      ),
    ).toBe(true);
  });

  it("sends a pasted file as a JSON object", () => {
    const onSubmit = vi.fn();
    render(<ImportCalibrationForm onSubmit={onSubmit} />);
    fireEvent.change(screen.getByLabelText("Calibration file (JSON)"), {
      target: { value: JSON.stringify(FILE, null, 2) },
    });
    fireEvent.click(screen.getByRole("button", { name: "Import calibration file" }));
    expect(onSubmit).toHaveBeenCalledWith(FILE);
  });

  it("reads a chosen file into the text area and sends it", async () => {
    const onSubmit = vi.fn();
    render(<ImportCalibrationForm onSubmit={onSubmit} />);
    const file = new File([JSON.stringify(FILE)], "calibration-cal_x.json", { type: "application/json" });
    fireEvent.change(screen.getByLabelText("Choose a calibration file"), { target: { files: [file] } });
    const area = screen.getByLabelText("Calibration file (JSON)") as HTMLTextAreaElement;
    await waitFor(() => expect(area.value).toBe(JSON.stringify(FILE)));
    expect(screen.getByText("calibration-cal_x.json")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Import calibration file" }));
    expect(onSubmit).toHaveBeenCalledWith(FILE);
  });

  it("says what was imported", () => {
    render(<ImportCalibrationForm onSubmit={vi.fn()} imported={calibration("cal_new", null)} />);
    expect(screen.getByRole("status").textContent).toBe(
      "Imported as cal_new: penguins, served by bayes-2, questions species. Check a run against it below.",
    );
  });

  it("says it is importing while the API answers", () => {
    render(<ImportCalibrationForm onSubmit={vi.fn()} submitting />);
    const button = screen.getByRole("button", { name: "Importing…" }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
  });
});
