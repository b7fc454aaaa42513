import { checkBinary, checkNonEmpty } from "../input.js";
import { smoothEce } from "../metrics/smooth-ece.js";
import type { Binary } from "../types.js";
import { interpolateGrid, reflectedConvolve, roundToGrid } from "./kernel.js";

/** A smoothed reliability curve: accuracy and prediction density at each mesh point t. */
export interface SmoothCurve {
  t: number[];
  accuracy: number[];
  density: number[];
  sigma: number;
}

/**
 * Kernel-smoothed reliability curve (Nadaraya-Watson with a reflected Gaussian kernel), bandwidth = the smooth-ECE
 * bandwidth unless given; `points` mesh points (200) [Blasiok & Nakkiran 2023, relplot].
 */
export function smoothReliability(b: Binary, opts: { sigma?: number; points?: number } = {}): SmoothCurve {
  const n = checkBinary(b, "smoothReliability");
  checkNonEmpty(n, "smoothReliability");
  const points = opts.points ?? 200;
  if (!Number.isInteger(points) || points < 2) {
    throw new RangeError(`smoothReliability: points must be an integer >= 2, got ${points}`);
  }
  const sigma = opts.sigma ?? smoothEce(b).sigma;
  if (!(sigma > 0 && Number.isFinite(sigma))) {
    throw new RangeError(`smoothReliability: sigma must be a positive number, got ${sigma}`);
  }
  const m = (Math.max(2000, Math.round(20 / sigma)) >> 1) + 1;
  const t = new Float64Array(points);
  for (let i = 0; i < points; i++) t[i] = i < points - 1 ? i * (1 / (points - 1)) : 1;
  const num = interpolateGrid(
    reflectedConvolve(
      roundToGrid(b.p, (i) => b.y[i], m),
      sigma,
    ),
    t,
  );
  const den = interpolateGrid(
    reflectedConvolve(
      roundToGrid(b.p, () => 1, m),
      sigma,
    ),
    t,
  );
  const accuracy: number[] = [];
  const density: number[] = [];
  for (let i = 0; i < points; i++) {
    accuracy.push(num[i] / (den[i] + 1e-4));
    density.push(den[i] / n);
  }
  return { t: Array.from(t), accuracy, density, sigma };
}
