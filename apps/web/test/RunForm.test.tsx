import type { RunInput } from "@decision-workbench/api/shapes";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunForm } from "../src/components/RunForm";
import { defaultRunForm } from "../src/transforms/runForm";
import { dataset, server } from "./fixtures";

afterEach(cleanup);

const DATASETS = [dataset("penguins"), dataset("spam")];
const SERVERS = [server({ id: "srv_e", embedded: true, models: ["workbench-latest", "bayes-1"] }), server()];

function renderForm(onSubmit = vi.fn()) {
  render(
    <RunForm
      datasets={DATASETS}
      servers={SERVERS}
      initial={defaultRunForm(DATASETS, SERVERS)}
      onSubmit={onSubmit}
    />,
  );
  return onSubmit;
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
});
