import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { smoothEce, smoothReliability } from "../src/index.js";

// Reference values computed with relplot's own smECE and ReflectedGaussianKernel (test/fixtures/make_smece.py).
interface Dataset {
  name: string;
  p: number[];
  y: string;
  ece: number;
  sigma: number;
  curve?: { points: number; accuracy: number[]; density: number[] };
}
const here = dirname(fileURLToPath(import.meta.url));
const fixture: { datasets: Dataset[] } = JSON.parse(readFileSync(join(here, "fixtures/smece.json"), "utf8"));
const binary = (d: Dataset) => ({ p: Float64Array.from(d.p), y: Uint8Array.from(d.y, (c) => Number(c)) });

describe("smooth ECE agrees with relplot's smECE", () => {
  it.each(fixture.datasets.map((d) => [d.name, d] as const))("%s", (_name, d) => {
    const r = smoothEce(binary(d));
    expect(Math.abs(r.sigma - d.sigma)).toBeLessThan(1e-6);
    expect(Math.abs(r.ece - d.ece)).toBeLessThan(1e-6);
  });

  it("counts no lost kernel mass as error: all-positive outcomes with uniform p give close to the exact 0.5", () => {
    const d = fixture.datasets.find((x) => x.name.startsWith("n1000 all positive"));
    expect(d).toBeDefined();
    expect(smoothEce(binary(d as Dataset)).ece).toBeGreaterThan(0.49);
  });
});

describe("smoothed reliability curve agrees with relplot's kernel smoother and kde", () => {
  const withCurve = fixture.datasets.filter((d) => d.curve);
  it("has reference curves to compare with", () => expect(withCurve.length).toBeGreaterThanOrEqual(3));
  it.each(withCurve.map((d) => [d.name, d] as const))("%s", (_name, d) => {
    const ref = d.curve as NonNullable<Dataset["curve"]>;
    const c = smoothReliability(binary(d), { points: ref.points });
    expect(Math.abs(c.sigma - d.sigma)).toBeLessThan(1e-6);
    for (let i = 0; i < ref.points; i++) {
      expect(Math.abs(c.accuracy[i] - ref.accuracy[i])).toBeLessThan(1e-6);
      expect(Math.abs(c.density[i] - ref.density[i])).toBeLessThan(1e-6);
    }
  });
});
