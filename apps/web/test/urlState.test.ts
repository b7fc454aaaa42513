// @vitest-environment node
import { BINS } from "@decision-workbench/api/limits";
import { describe, expect, it } from "vitest";
import {
  RUN_VIEW_DEFAULTS,
  readRunList,
  readRunView,
  toggleRun,
  writeRunView,
} from "../src/transforms/urlState";

describe("readRunView", () => {
  it("reads every part of a shared link", () => {
    const v = readRunView(
      new URLSearchParams(
        "tab=items&item=sex&split=calibration&binning=mass&bins=20&view=classwise&example=p-1&filter=wrong&label=male&offset=50",
      ),
    );
    expect(v).toEqual({
      tab: "items",
      item: "sex",
      split: "calibration",
      binning: "mass",
      bins: 20,
      view: "classwise",
      example: "p-1",
      filter: "wrong",
      label: "male",
      offset: 50,
    });
  });

  it("falls back to defaults on unknown values and clamps the bin count", () => {
    const v = readRunView(new URLSearchParams("tab=nope&binning=quantile&bins=500&offset=-3&filter=x"));
    expect(v.tab).toBe("reliability");
    expect(v.binning).toBe("width");
    expect(v.bins).toBe(BINS.max);
    expect(v.offset).toBe(0);
    expect(v.filter).toBe(RUN_VIEW_DEFAULTS.filter);
    expect(readRunView(new URLSearchParams("bins=1")).bins).toBe(2);
    expect(readRunView(new URLSearchParams("bins=abc")).bins).toBe(15);
  });
});

describe("writeRunView", () => {
  it("merges a patch, keeps other parameters and drops defaults so links stay short", () => {
    const next = writeRunView(new URLSearchParams("item=sex&tab=confidence&foo=1"), {
      tab: "reliability",
      bins: 20,
    });
    expect(next.get("tab")).toBeNull();
    expect(next.get("bins")).toBe("20");
    expect(next.get("item")).toBe("sex");
    expect(next.get("foo")).toBe("1");
    expect(writeRunView(next, { item: undefined, bins: 15 }).toString()).toBe("foo=1");
  });

  it("round-trips through readRunView", () => {
    const patch = { tab: "unknowns" as const, binning: "mass" as const, example: "x y" };
    expect(readRunView(writeRunView(new URLSearchParams(), patch))).toMatchObject(patch);
  });
});

describe("run lists", () => {
  it("reads ?runs=a,b deduplicated and toggles an id", () => {
    expect(readRunList(new URLSearchParams("runs=a,%20b,a,,c"))).toEqual(["a", "b", "c"]);
    expect(readRunList(new URLSearchParams(""))).toEqual([]);
    expect(toggleRun(["a", "b"], "a")).toEqual(["b"]);
    expect(toggleRun(["a"], "c")).toEqual(["a", "c"]);
  });
});
