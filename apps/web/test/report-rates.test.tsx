import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { RateText } from "../src/components/CiText";
import { ConsistencyNote, Metric } from "../src/components/MetricCards";
import { miniSubtitle } from "../src/pages/run/ReliabilityTab";
import { formatRate } from "../src/transforms/format";
import { bin, rate } from "./fixtures";

afterEach(() => {
  cleanup();
});

describe("rates show their n and interval", () => {
  it("formats 100% from one item as 1/1 with its Wilson interval, and 0/0 without a share", () => {
    expect(formatRate(rate(1, 1))).toBe("100.0% (1/1, 20.7–100.0%)");
    expect(formatRate(rate(1, 2))).toBe("50.0% (1/2, 9.5–90.5%)");
    expect(formatRate(rate(0, 0))).toBe("— (0/0)");
    expect(formatRate(null)).toBe("—");
  });

  it("RateText puts the count and interval under the share", () => {
    render(
      <table>
        <tbody>
          <tr>
            <td data-testid="cell">
              <RateText rate={rate(41, 43)} />
            </td>
          </tr>
        </tbody>
      </table>,
    );
    expect(screen.getByTestId("cell").textContent).toBe("95.3%41/43 · 84.5–98.7%");
  });

  it("a rate card shows x/n and the interval; its tooltip names the interval's method", () => {
    render(
      <Metric
        label="Unknown precision"
        unit="percent"
        rate={rate(1, 1)}
        method="Wilson score interval"
        help="Of the predicted Unknowns, the share that really are."
      />,
    );
    const card = screen.getByText("Unknown precision").parentElement as HTMLElement;
    expect(card.textContent).toContain("100.0%");
    expect(card.textContent).toContain("1/1 · 95% CI 20.7–100.0%");
    expect(card.getAttribute("title")).toContain("95% interval: Wilson score interval.");
  });
});

describe("ConsistencyNote", () => {
  it("states the verdict with its p-value and method, and nothing without a test", () => {
    const { container } = render(
      <ConsistencyNote consistency={{ statistic: "ece", pValue: 0.41, resamples: 1000, method: "m" }} />,
    );
    expect(container.textContent).toContain("Consistent with perfect calibration: p = 0.41");
    expect(container.textContent).toContain("consistency resampling, 1,000 draws");
    cleanup();
    const none = render(<ConsistencyNote consistency={undefined} />);
    expect(none.container.textContent).toBe("");
  });
});

describe("small multiples", () => {
  it("caption each option with its ECE (with its interval when the API gives one), counts and recall as x of n", () => {
    const o = {
      option: "Adelie",
      bins: [bin(0.8, 0.9, 20, 0.85, 0.8), bin(0.9, 1, 20, 0.95, 0.95)],
      precision: 38 / 40,
      recall: 38 / 41,
      f1: 0.94,
      support: 41,
      predicted: 40,
      rates: { precision: rate(38, 40), recall: rate(38, 41) },
    };
    expect(miniSubtitle(o, 90, "mass")).toBe(
      "ECE 2.5% (equal-mass) · gold in 41 of 90 · predicted 40 · recall 92.7% (38/41, 80.6–97.5%)",
    );
    const withEce = {
      ...o,
      ece: { estimate: [0.021, 0.004, 0.06] as [number, number, number], plain: 0.025, resamples: 200 },
    };
    expect(miniSubtitle(withEce, 90, "mass")).toBe(
      "ECE 2.1% (0.4–6.0%, bias-corrected, equal-width) · gold in 41 of 90 · predicted 40 · recall 92.7% (38/41, 80.6–97.5%)",
    );
  });
});
