import {
  gaussianOnGrid,
  meshGridPoints,
  meshSums,
  pyRound,
  reflectedConvolveAt,
  roundOntoGrid,
  smoothingGridSize,
} from "../binning/kernel.js";
import { checkBinary, checkNonEmpty } from "../input.js";
import type { Binary } from "../types.js";

/** relplot's smECE: bandwidths below this end the search (eps = 0.001); 10 bisection steps from 1. */
const SIGMA_FLOOR = 0.001;
const REFINE = 10;
/** relplot's smoothing floor added to the density (BaseKernelMixin.smooth, eps = 0.0001). */
const DENSITY_EPS = 1e-4;
/** relplot's smECE mesh: at least 200 points, round(10 / sigma) when that is more (config.smECE_mesh_pts). */
const MESH = 200;

/** Residuals p - y and counts rounded onto relplot's grid for one bandwidth, reused while the grid size holds. */
class SmoothingGrid {
  private m = 0;
  private num = new Float64Array(0);
  private den = new Float64Array(0);
  private sNum = new Float64Array(0);
  private sDen = new Float64Array(0);
  private ker = new Float64Array(0);
  private readonly sums = new Float64Array(2);
  constructor(private readonly b: Binary) {}

  /** relplot's smECE_sigma(f, y, sigma): the smoothed |residual| integrated against the smoothed density. */
  eceAt(sigma: number): number {
    const m = smoothingGridSize(sigma);
    if (m !== this.m) {
      this.m = m;
      this.num = new Float64Array(m);
      this.den = new Float64Array(m);
      this.sNum = new Float64Array(m);
      this.sDen = new Float64Array(m);
      this.ker = new Float64Array(m);
      roundOntoGrid(this.b.p, this.b.y, 1, -1, this.num, this.den);
    }
    const points = Math.max(pyRound(10 / sigma), MESH);
    gaussianOnGrid(sigma, this.ker);
    reflectedConvolveAt(this.num, this.den, this.ker, sigma, meshGridPoints(m, points), this.sNum, this.sDen);
    meshSums(this.sNum, this.sDen, points, DENSITY_EPS, this.sums);
    return this.sums[0] / this.sums[1];
  }
}

/**
 * relplot's bandwidth search (search_param): sigma = 1 if smECE_1 > 1 (never for probabilities), else 10 bisection
 * steps on [0, 1] for the fixed point sigma = smECE_sigma, keeping the largest sigma found with smECE_sigma <= sigma.
 */
function searchBandwidth(tooSmooth: (sigma: number) => boolean): number {
  // relplot first tests sigma = 1; that test always fails (|smoothed residual| <= smoothed count at every mesh point,
  // and the density has 1e-4 added, so smECE_sigma < 1), so it is not computed.
  let start = 1;
  let end = 0;
  for (let i = 0; i < REFINE; i++) {
    const mid = (start + end) / 2;
    if (tooSmooth(mid)) end = mid;
    else start = mid;
  }
  return start;
}

/**
 * Smooth ECE, exactly relplot's smECE [Blasiok & Nakkiran 2023, "Smooth ECE: principled reliability diagrams via
 * kernel smoothing"; relplot, github.com/apple/ml-calibration]: residuals p - y smoothed with a Gaussian kernel
 * reflected at 0 and 1 on relplot's grid (1001 points, more below sigma = 0.01), |smoothed residual| summed over a
 * mesh of max(200, round(10 / sigma)) points and divided by the smoothed density summed over the same mesh (so mass
 * the kernel loses past the edges is not counted as error); the bandwidth is the fixed point sigma = smECE_sigma found
 * by relplot's 10 bisection steps (stopping below 0.001). Agrees with relplot to 1e-12 (test/fixtures/smece.json).
 */
export function smoothEce(b: Binary): { ece: number; sigma: number } {
  const n = checkBinary(b, "smoothEce");
  checkNonEmpty(n, "smoothEce");
  return smoothEceUnchecked(b, n);
}

/** Smooth ECE of validated data (n items, n >= 1). Internal. */
export function smoothEceUnchecked(b: Binary, _n: number): { ece: number; sigma: number } {
  const grid = new SmoothingGrid(b);
  const sigma = searchBandwidth((alpha) => alpha < SIGMA_FLOOR || alpha < grid.eceAt(alpha));
  return { ece: grid.eceAt(sigma), sigma };
}
