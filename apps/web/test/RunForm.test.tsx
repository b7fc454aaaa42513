import type { RunInput } from "@decision-workbench/api/shapes";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../src/api/client";
import { RunForm } from "../src/components/RunForm";
import { defaultRunForm } from "../src/transforms/runForm";
import { dataset, server } from "./fixtures";

afterEach(cleanup);

const DATASETS = [dataset("penguins"), dataset("spam")];
const SERVERS = [server({ id: "srv_e", embedded: true, models: ["workbench-latest", "bayes-1"] }), server()];

function renderForm(onSubmit = vi.fn(), error?: unknown) {
  render(
    <RunForm
      datasets={DATASETS}
      servers={SERVERS}
      initial={defaultRunForm(DATASETS, SERVERS)}
      onSubmit={onSubmit}
      error={error}
    />,
  );
  return onSubmit;
}

/** The page's text outside the collapsed technical details. */
function outsideDetails(): string {
  const copy = document.body.cloneNode(true) as HTMLElement;
  for (const d of copy.querySelectorAll("details.technical-details")) d.remove();
  return copy.textContent ?? "";
}

/** The text of the elements a control's aria-describedby names. */
function description(el: HTMLElement): string {
  return (el.getAttribute("aria-describedby") ?? "")
    .split(" ")
    .map((id) => document.getElementById(id)?.textContent ?? "")
    .join(" ");
}

describe("RunForm", () => {
  it("starts pre-filled so a newcomer only has to press the button", () => {
    const onSubmit = renderForm();
    expect((screen.getByLabelText("Dataset") as HTMLSelectElement).value).toBe("penguins");
    expect((screen.getByLabelText("Model") as HTMLSelectElement).value).toBe("workbench-latest");
    expect(screen.getByText("200 examples will be asked about.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    const input = onSubmit.mock.calls[0][0] as RunInput;
    expect(input).toMatchObject({
      dataset: "penguins",
      serverId: "srv_e",
      model: "workbench-latest",
      splits: ["calibration", "test"],
      concurrency: 16,
    });
  });

  it("offers the chosen server's models", () => {
    renderForm();
    fireEvent.change(screen.getByLabelText("Decision server"), { target: { value: "srv_a" } });
    const models = [...(screen.getByLabelText("Model") as HTMLSelectElement).options].map((o) => o.value);
    expect(models).toEqual(["m-1", "m-2"]);
    expect((screen.getByLabelText("Model") as HTMLSelectElement).value).toBe("m-1");
  });

  it("sends a limit and the server options", () => {
    const onSubmit = renderForm();
    fireEvent.change(screen.getByLabelText("Limit per split"), { target: { value: "20" } });
    fireEvent.change(screen.getByLabelText("max_think"), { target: { value: "128" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    expect(onSubmit.mock.calls[0][0]).toMatchObject({
      limit: 20,
      options: { max_think: 128, return_reasoning: true },
    });
  });

  it("refuses bad values with messages next to the fields", () => {
    const onSubmit = renderForm();
    fireEvent.change(screen.getByLabelText("Concurrency"), { target: { value: "0" } });
    fireEvent.click(screen.getByLabelText(/^calibration/));
    fireEvent.click(screen.getByLabelText(/^test/));
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    expect(onSubmit).not.toHaveBeenCalled();
    const alert = screen.getByRole("alert").textContent ?? "";
    expect(alert).toMatch(/Concurrency must be a whole number from 1 to 256/);
    expect(alert).toMatch(/Pick at least one split/);
  });

  it("focuses the first invalid field after a refused submit, opening the server options for it", () => {
    renderForm();
    fireEvent.change(screen.getByLabelText("max_think"), { target: { value: "-1" } });
    fireEvent.change(screen.getByLabelText("nothink_threshold"), { target: { value: "2" } });
    fireEvent.click(screen.getByRole("button", { name: "Start run" }));
    const field = screen.getByLabelText("max_think");
    expect(document.activeElement).toBe(field);
    expect(field.closest("details")?.open).toBe(true);
    expect(field.getAttribute("aria-invalid")).toBe("true");
  });

  it("puts the API's refusal on the fields it concerns, rewritten, and focuses the first", () => {
    const error = new ApiError(
      400,
      "invalid_request",
      "body.limit must be >= 1; body.options.max_think must be an integer; body.concurrency must be <= 256",
      [],
      { method: "POST", path: "/runs" },
    );
    renderForm(vi.fn(), error);
    const limit = screen.getByLabelText("Limit per split");
    expect(limit.getAttribute("aria-invalid")).toBe("true");
    expect(description(limit)).toContain("Limit per split must be at least 1 example.");
    expect(description(screen.getByLabelText("max_think"))).toContain("max_think must be a whole number.");
    expect(description(screen.getByLabelText("Concurrency"))).toContain("Concurrency must be at most 256.");
    expect(document.activeElement).toBe(screen.getByLabelText("Concurrency"));
    // the summary lists all three; the API's words only inside the collapsed details
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("3 things to fix");
    const details = document.querySelector("details.technical-details");
    expect(details?.textContent).toContain("body.limit must be >= 1");
    expect(details?.hasAttribute("open")).toBe(false);
    expect(outsideDetails()).not.toMatch(/body\.|invalid_request|HTTP 400/);
  });

  it("ties a model the server no longer offers to the Model field, and clears it once changed", () => {
    const error = new ApiError(
      400,
      "invalid_request",
      'model "workbench-latest" is not one of server "Embedded"\'s models ("bayes-1"); add it to the server first (PATCH /api/servers/srv_e)',
    );
    renderForm(vi.fn(), error);
    const model = screen.getByLabelText("Model");
    expect(description(model)).toContain(
      "The server “Embedded” does not offer the model “workbench-latest”; pick one of its models",
    );
    expect(document.activeElement).toBe(model);
    expect(outsideDetails()).not.toMatch(/PATCH|\/api\//);
    fireEvent.change(model, { target: { value: "bayes-1" } });
    expect(model.getAttribute("aria-invalid")).toBeNull();
  });

  it("shows no estimate of an input the API has just refused on its fields", () => {
    const props = {
      datasets: DATASETS,
      servers: SERVERS,
      initial: defaultRunForm(DATASETS, SERVERS),
      onSubmit: vi.fn(),
      estimate: () => <p>estimated</p>,
    };
    const { rerender } = render(<RunForm {...props} />);
    expect(screen.queryByText("estimated")).not.toBeNull();
    rerender(<RunForm {...props} error={new ApiError(400, "invalid_request", "body.limit must be >= 1")} />);
    expect(screen.queryByText("estimated")).toBeNull();
  });

  it("shows a refusal no field is for in the error box, without a Try again", () => {
    const error = new ApiError(409, "conflict", "the workbench is busy; try later", [], {
      method: "POST",
      path: "/runs",
    });
    renderForm(vi.fn(), error);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("The run could not be started");
    expect(alert.textContent).toContain("The workbench is busy; try later.");
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
  });
});
