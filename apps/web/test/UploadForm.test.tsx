import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { UploadForm } from "../src/components/UploadForm";

afterEach(cleanup);

describe("UploadForm", () => {
  it("lists the API's validation errors by line, and says nothing was stored", () => {
    const error = new ApiError(400, "invalid_dataset", "3 lines have errors.", [
      { line: 12, field: "labels.q", message: "unknown label 'maybe'; expected yes or no" },
      { line: 4, column: 1, message: "not JSON" },
      { line: 12, field: "state", message: "missing" },
    ]);
    render(<UploadForm onSubmit={vi.fn()} error={error} />);
    const alert = screen.getByRole("alert");
    const items = within(alert)
      .getAllByRole("listitem")
      .map((li) => li.textContent);
    expect(items).toEqual([
      "Line 4, column 1: not JSON",
      "Line 12 (labels.q): unknown label 'maybe'; expected yes or no",
      "Line 12 (state): missing",
    ]);
    expect(alert.textContent).toContain("3 lines have errors. Nothing was stored.");
  });

  it("does not repeat that nothing was stored when the API said so", () => {
    const error = new ApiError(400, "invalid_dataset", "t.jsonl: 1 error, nothing imported", [
      { line: 2, message: "bad" },
    ]);
    render(<UploadForm onSubmit={vi.fn()} error={error} />);
    expect(screen.getByRole("alert").textContent).toContain("t.jsonl: 1 error, nothing imported");
    expect(screen.getByRole("alert").textContent).not.toContain("Nothing was stored");
  });

  it("checks the task JSON before sending it", () => {
    const onSubmit = vi.fn();
    render(<UploadForm onSubmit={onSubmit} />);
    fireEvent.change(screen.getByLabelText("Task definition (JSON)"), {
      target: { value: '{"name": "t",\n"items": [' },
    });
    fireEvent.change(screen.getByLabelText("Examples"), { target: { value: '{"state":"x"}' } });
    fireEvent.click(screen.getByRole("button", { name: "Upload" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toMatch(/The task is not valid JSON/);
  });

  it("sends task, format and content", () => {
    const onSubmit = vi.fn();
    render(<UploadForm onSubmit={onSubmit} />);
    const task = { name: "t", description: "d", items: [{ name: "q", kind: "yesno", question: "?" }] };
    fireEvent.change(screen.getByLabelText("Task definition (JSON)"), {
      target: { value: JSON.stringify(task) },
    });
    fireEvent.change(screen.getByLabelText("Examples"), { target: { value: "state,q\nx,yes" } });
    fireEvent.change(screen.getByLabelText("Format"), { target: { value: "csv" } });
    fireEvent.click(screen.getByRole("button", { name: "Upload" }));
    expect(onSubmit).toHaveBeenCalledWith({ task, format: "csv", content: "state,q\nx,yes" });
  });
});
