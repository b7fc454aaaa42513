import type { Calibration, RunSummary } from "@decision-workbench/api/shapes";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { ReactNode } from "react";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import CalibratePage from "../src/pages/CalibratePage";
import { BeforeAfter } from "../src/pages/calibrate/BeforeAfter";
import { FitForm } from "../src/pages/calibrate/FitForm";
import { LabelThresholds } from "../src/pages/calibrate/LabelThresholds";
import { SelectionSummary } from "../src/pages/calibrate/SelectionSummary";
import { calibration } from "./fixtures";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function wrap(node: ReactNode) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return render(<QueryClientProvider client={qc}>{node}</QueryClientProvider>);
}

const run = (splits: RunSummary["splits"]) =>
  ({ id: "run_a", dataset: "penguins", splits, status: "done" }) as RunSummary;
const ITEMS = [
  { name: "species", kind: "choice", options: ["Adelie", "Chinstrap", "Gentoo"], notStated: false },
  { name: "labels", kind: "multi", options: ["a", "b"], notStated: false },
] as Parameters<typeof FitForm>[0]["items"];

/** Captures the body of the fit request and answers with a calibration. */
function stubFit(): { bodies: unknown[] } {
  const bodies: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(JSON.stringify(calibration("cal_new", "run_a")), {
        status: 201,
        headers: { "content-type": "application/json" },
      });
    }),
  );
  return { bodies };
}

describe("FitForm", () => {
  it("refuses a target risk out of range on its field and focuses it", () => {
    stubFit();
    wrap(<FitForm run={run(["calibration", "test"])} items={ITEMS} onFitted={vi.fn()} />);
    const risk = screen.getByLabelText("Target risk (%)");
    fireEvent.change(risk, { target: { value: "120" } });
    fireEvent.click(screen.getByRole("button", { name: "Fit calibration" }));
    expect(risk.getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(risk);
  });

  it("puts the API's refusal on the field it concerns, in the form's words, and focuses it", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({
              error: { code: "invalid_request", message: 'body.select must be one of "nll", "brier"' },
            }),
            { status: 400, headers: { "content-type": "application/json" } },
          ),
      ),
    );
    wrap(<FitForm run={run(["calibration", "test"])} items={ITEMS} onFitted={vi.fn()} />);
    fireEvent.click(screen.getByRole("button", { name: "Fit calibration" }));
    const by = screen.getByLabelText("Compare by");
    await waitFor(() => expect(by.getAttribute("aria-invalid")).toBe("true"));
    expect(
      document.getElementById(by.getAttribute("aria-describedby")?.split(" ").pop() ?? "")?.textContent,
    ).toBe("Compare by must be one of nll, brier.");
    await waitFor(() => expect(document.activeElement).toBe(by));
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull();
  });

  it("fits with auto by default, cross-fitting on calibration and reporting on test", async () => {
    const { bodies } = stubFit();
    const onFitted = vi.fn();
    wrap(<FitForm run={run(["train", "calibration", "test"])} items={ITEMS} onFitted={onFitted} />);
    fireEvent.click(screen.getByRole("button", { name: "Fit calibration" }));
    await waitFor(() => expect(onFitted).toHaveBeenCalled());
    expect(bodies[0]).toMatchObject({ fitSplit: "calibration", evalSplit: "test", method: "auto" });
    expect(bodies[0]).not.toHaveProperty("selectionSplit");
  });

  it("sends a forced method, and offers no vector scaling when a multi-label item is fitted", async () => {
    const { bodies } = stubFit();
    const onFitted = vi.fn();
    wrap(<FitForm run={run(["calibration", "test"])} items={ITEMS} onFitted={onFitted} />);
    const picker = screen.getByLabelText("Method") as HTMLSelectElement;
    const values = within(picker)
      .getAllByRole("option")
      .map((o) => (o as HTMLOptionElement).value);
    expect(values).toEqual(["auto", "identity", "temperature", "platt", "beta", "histogram", "isotonic"]);
    fireEvent.change(screen.getByLabelText("Items"), { target: { value: "species" } });
    expect(within(picker).getByRole("option", { name: "vector scaling" })).toBeTruthy();
    fireEvent.change(picker, { target: { value: "vector" } });
    expect((screen.getByLabelText("Compare candidates on") as HTMLSelectElement).disabled).toBe(true);
    // back to every item: vector is not valid for the multi-label one, so the picker falls back to auto, visibly
    fireEvent.change(screen.getByLabelText("Items"), { target: { value: "" } });
    expect(picker.value).toBe("auto");
    fireEvent.change(picker, { target: { value: "platt" } });
    fireEvent.click(screen.getByRole("button", { name: "Fit calibration" }));
    await waitFor(() => expect(onFitted).toHaveBeenCalled());
    expect(bodies[0]).toMatchObject({ method: "platt" });
  });

  it("compares on a separate split when asked, and says what a one-split run costs", async () => {
    const { bodies } = stubFit();
    const onFitted = vi.fn();
    const { unmount } = wrap(
      <FitForm run={run(["train", "calibration", "test"])} items={ITEMS} onFitted={onFitted} />,
    );
    fireEvent.change(screen.getByLabelText("Compare candidates on"), { target: { value: "train" } });
    fireEvent.click(screen.getByRole("button", { name: "Fit calibration" }));
    await waitFor(() => expect(onFitted).toHaveBeenCalled());
    expect(bodies[0]).toMatchObject({ selectionSplit: "train", evalSplit: "test" });
    unmount();
    wrap(<FitForm run={run(["test"])} items={ITEMS} onFitted={vi.fn()} />);
    expect(screen.getByRole("note").textContent).toMatch(/only the test split/);
    expect((screen.getByLabelText("Report on") as HTMLSelectElement).value).toBe("crossfit");
  });
});

function fitted(): Calibration {
  const c = calibration("cal_1", "run_a");
  return {
    ...c,
    selection: {
      species: {
        by: "cross-fit",
        on: "calibration",
        folds: 5,
        criterion: "nll",
        verdict: "indistinguishable",
        note: "chosen by 5-fold cross-fitting on calibration; beta indistinguishable from platt (NLL improvement 0.0010)",
      },
    },
    warnings: { species: ["all 89 fit items are correct", "T reached its floor 0.05"] },
    fit: {
      fitSplit: "calibration",
      evalSplit: "test",
      selectionSplit: null,
      method: "auto",
      select: "nll",
      folds: 5,
      targetRisk: null,
      conservative: false,
      estimatedBy: "evaluation split",
      caveat: null,
      n: { species: { fit: 412, eval: 398 } },
    },
  };
}

describe("SelectionSummary", () => {
  it("says where the numbers come from, the verdict and every warning, visibly", () => {
    render(<SelectionSummary cal={fitted()} item="species" />);
    expect(
      screen.getByText(
        "Fitted on calibration (n = 412), method chosen by 5-fold cross-fit on calibration, evaluated once on test (n = 398).",
      ),
    ).toBeTruthy();
    expect(screen.getByText("indistinguishable")).toBeTruthy();
    expect(screen.getByText(/beta indistinguishable from platt/)).toBeTruthy();
    const alert = screen.getByRole("alert");
    expect(
      within(alert)
        .getAllByRole("listitem")
        .map((li) => li.textContent),
    ).toEqual(["all 89 fit items are correct", "T reached its floor 0.05"]);
  });
});

describe("LabelThresholds", () => {
  it("lists each label's threshold with n and its F1 interval", () => {
    const cal = fitted();
    cal.file.questions.species = {
      ...cal.file.questions.species,
      kind: "multi",
      label_thresholds: [
        { label: "a", threshold: 0.31, n: 120, f1: [0.8, 0.74, 0.86] },
        { label: "b", threshold: 0.62, n: 120, f1: [0.5, 0.41, 0.59] },
      ],
    };
    render(<LabelThresholds cal={cal} item="species" />);
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      "a0.3101200.8000.740–0.860",
      "b0.6201200.5000.410–0.590",
    ]);
  });

  it("puts each label's ECE and NLL before and after next to its threshold, with n and intervals", () => {
    const cal = fitted();
    const side = (ece: [number, number, number], nll: [number, number, number]) => ({ ece, nll });
    cal.file.questions.species = {
      ...cal.file.questions.species,
      kind: "multi",
      label_thresholds: [
        { label: "a", threshold: 0.31, n: 120, f1: [0.8, 0.74, 0.86] },
        { label: "b", threshold: 0.62, n: 120, f1: [0.5, 0.41, 0.59] },
      ],
      label_metrics: [
        {
          label: "b",
          n: 120,
          before: side([0.12, 0.08, 0.16], [0.7, 0.6, 0.8]),
          after: side([0.03, 0, 0.07], [0.5, 0.45, 0.56]),
        },
        {
          label: "a",
          n: 120,
          before: side([0.09, 0.05, 0.13], [0.6, 0.5, 0.7]),
          after: side([0.02, 0, 0.06], [0.4, 0.35, 0.46]),
        },
      ],
    };
    render(<LabelThresholds cal={cal} item="species" />);
    expect(screen.getByRole("table", { name: "Per-label thresholds and calibration" })).toBeTruthy();
    expect(
      screen.getByText(
        /^Thresholds chosen on out-of-fold calibration probabilities; F1 and calibration measured on the test split/,
      ),
    ).toBeTruthy();
    const header = screen.getAllByRole("columnheader").map((h) => h.textContent);
    expect(header).toEqual([
      "Label",
      "Threshold",
      "n",
      "F1",
      "ECE before",
      "ECE after",
      "NLL before",
      "NLL after",
    ]);
    const cells = (label: string) =>
      within(screen.getByRole("row", { name: new RegExp(`^${label}`) }))
        .getAllByRole("cell")
        .map((c) => c.textContent);
    // matched by label, not by position
    expect(cells("a").slice(3)).toEqual([
      "9.0%5.0–13.0%",
      "2.0%0.0–6.0%",
      "0.6000.500–0.700",
      "0.4000.350–0.460",
    ]);
    expect(cells("b").slice(3, 5)).toEqual(["12.0%8.0–16.0%", "3.0%0.0–7.0%"]);
  });

  it("shows per-label calibration without thresholds (a file without a target risk)", () => {
    const cal = fitted();
    cal.file.questions.species = {
      ...cal.file.questions.species,
      kind: "multi",
      label_metrics: [
        {
          label: "a",
          n: 80,
          before: { ece: [0.1, 0.05, 0.15], nll: [0.6, 0.5, 0.7] },
          after: { ece: [0.04, 0, 0.09], nll: [0.5, 0.4, 0.6] },
        },
      ],
    };
    render(<LabelThresholds cal={cal} item="species" />);
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
      "Label",
      "n",
      "ECE before",
      "ECE after",
      "NLL before",
      "NLL after",
    ]);
    expect(screen.getByRole("table", { name: "Per-label calibration" })).toBeTruthy();
    expect(screen.getByText(/^Calibration measured on the test split/)).toBeTruthy();
  });
});

describe("BeforeAfter", () => {
  it("shows the metrics side by side and says where they were measured", () => {
    const cal = fitted();
    cal.file.questions.species.metrics = {
      before: { ece: [0.08, 0.05, 0.11], nll: [0.7, 0.6, 0.8] },
      after: { ece: [0.02, 0.0, 0.05], nll: [0.5, 0.42, 0.61] },
      estimated_by: "evaluation split",
    };
    render(<BeforeAfter cal={cal} item="species" />);
    expect(screen.getByText(/measured once on test, which the choice never read \(n = 398\)/)).toBeTruthy();
    const rows = screen.getAllByRole("row").slice(1);
    expect(rows.map((r) => r.querySelector("th")?.textContent)).toEqual(["ECE (equal-width)", "NLL"]);
    cleanup();
    cal.file.questions.species.metrics.estimated_by = "cross-fit";
    render(<BeforeAfter cal={cal} item="species" />);
    expect(
      screen.getByText(/out-of-fold cross-fit estimates on calibration, not untouched held-out data/),
    ).toBeTruthy();
  });
});

describe("CalibratePage's check section", () => {
  it("offers a calibration fitted on the page at once, with no reload and no second fit", async () => {
    const stored: Calibration[] = [];
    const gets: string[] = [];
    const json = (body: unknown, status = 200) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const path = String(url);
        if (init?.method === "POST" && path === "/api/runs/run_a/calibrations") {
          const cal = calibration("cal_new", "run_a");
          stored.push(cal);
          return json(cal, 201);
        }
        gets.push(path);
        if (path === "/api/runs/run_a")
          return json({ ...run(["calibration", "test"]), model: "workbench-latest", servedBy: [] });
        if (path === "/api/datasets/penguins") return json({ name: "penguins", items: ITEMS });
        if (path === "/api/calibrations?runId=run_a" || path === "/api/calibrations") return json(stored);
        if (path === "/api/calibrations/cal_new") return json(stored[0]);
        return json({ error: { code: "not_found", message: `no ${path} in this test` } }, 404);
      }),
    );
    wrap(
      <MemoryRouter initialEntries={["/runs/run_a/calibrate"]}>
        <Routes>
          <Route path="/runs/:id/calibrate" element={<CalibratePage />} />
        </Routes>
      </MemoryRouter>,
    );
    const check = await screen.findByRole("region", { name: "Check this run against a calibration" });
    await within(check).findByText("No calibration of this dataset to check against");
    const listed = gets.filter((g) => g === "/api/calibrations").length;
    fireEvent.click(await screen.findByRole("button", { name: "Fit calibration" }));
    // the check's list is fetched again and offers the new calibration, picked
    const picker = (await within(check).findByLabelText("Calibration")) as HTMLSelectElement;
    expect(picker.value).toBe("cal_new");
    expect(within(check).queryByText("No calibration of this dataset to check against")).toBeNull();
    expect(gets.filter((g) => g === "/api/calibrations").length).toBe(listed + 1);
    // and the page's own picker of the run's calibrations was refreshed too
    expect(gets.filter((g) => g === "/api/calibrations?runId=run_a").length).toBe(2);
  });
});

describe("CalibratePage numbers and errors", () => {
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const page = () =>
    wrap(
      <MemoryRouter initialEntries={["/runs/run_a/calibrate"]}>
        <Routes>
          <Route path="/runs/:id/calibrate" element={<CalibratePage />} />
        </Routes>
      </MemoryRouter>,
    );

  it("writes the fitted parameters and the threshold to 3 significant digits", async () => {
    const cal = calibration("cal_p", "run_a");
    cal.file.questions.species = {
      ...cal.file.questions.species,
      method: "platt",
      params: { a: 0.9494938803943613, b: -0.04567891 },
      threshold: { target_risk: 0.05, min_confidence: 0.6740437215, conservative: false },
    } as (typeof cal.file.questions)["species"];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        const path = String(url);
        if (path === "/api/runs/run_a")
          return json({ ...run(["calibration", "test"]), model: "workbench-latest", servedBy: [] });
        if (path === "/api/datasets/penguins") return json({ name: "penguins", items: ITEMS });
        if (path.startsWith("/api/calibrations?") || path === "/api/calibrations") return json([cal]);
        if (path === "/api/calibrations/cal_p") return json(cal);
        return json({ error: { code: "not_found", message: `no ${path} in this test` } }, 404);
      }),
    );
    page();
    const result = await screen.findByRole("region", { name: "Calibration result" });
    expect(result.textContent).toContain("(a = 0.949, b = −0.0457)");
    expect(result.textContent).toContain("escalate below confidence 0.674,");
    expect(result.textContent).not.toMatch(/0\.94949|0\.67404/);
  });

  it("says a run that does not exist may have been deleted, with no Try again", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () =>
        json(
          {
            error: {
              code: "not_found",
              message: 'run "run_a" does not exist; list the runs with GET /api/runs',
            },
          },
          404,
        ),
      ),
    );
    page();
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The run could not be loaded");
    expect(alert.textContent).toContain("This run does not exist; it may have been deleted.");
    expect(within(alert).getByRole("link", { name: "Go to the Runs page" }).getAttribute("href")).toBe("/");
    expect(within(alert).queryByRole("button", { name: "Try again" })).toBeNull();
    const summary = alert.querySelector("details.technical-details");
    expect(summary?.hasAttribute("open")).toBe(false);
    expect(summary?.textContent).toContain("GET /api/runs");
  });
});
