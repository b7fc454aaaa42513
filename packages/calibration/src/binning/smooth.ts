import { checkBinary, checkNonEmpty } from "../input.js";
import { smoothEce } from "../metrics/smooth-ece.js";
import type { Binary } from "../types.js";
import {
  gaussianOnGrid,
  interpolateGrid,
  meshGridPoints,
  reflectedConvolveAt,
  roundOntoGrid,
  smoothingGridSize,
  unitMesh,
} from "./kernel.js";

/** A smoothed reliability curve: accuracy and prediction density at each mesh point t. */
export interface SmoothCurve {
  t: number[];
  accuracy: number[];
  density: number[];
  sigma: number;
}

/**
 * Kernel-smoothed reliability curve (Nadaraya-Watson with a reflected Gaussian kernel), bandwidth = the smooth-ECE
 * bandwidth unless given; `points` mesh points (200): relplot's KernelSmoother mean (accuracy = smoothed y over
 * smoothed count + 1e-4) and kde density, on the same grid as smooth ECE [Blasiok & Nakkiran 2023, relplot].
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
  const m = smoothingGridSize(sigma);
  const ys = new Float64Array(m);
  const ones = new Float64Array(m);
  roundOntoGrid(b.p, b.y, 0, 1, ys, ones);
  const ker = new Float64Array(m);
  gaussianOnGrid(sigma, ker);
  const sNum = new Float64Array(m);
  const sDen = new Float64Array(m);
  reflectedConvolveAt(ys, ones, ker, sigma, meshGridPoints(m, points), sNum, sDen);
  const t = unitMesh(points);
  const num = interpolateGrid(sNum, t);
  const den = interpolateGrid(sDen, t);
  const accuracy: number[] = [];
  const density: number[] = [];
  for (let i = 0; i < points; i++) {
    accuracy.push(num[i] / (den[i] + 1e-4));
    density.push(den[i] / n);
  }
  return { t: Array.from(t), accuracy, density, sigma };
}
