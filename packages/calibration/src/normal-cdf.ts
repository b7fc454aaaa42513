// The standard normal distribution function through erfc. Internal: not part of the public surface.

/** erfc(x) for x >= 0, fractional error below 1.2e-7 (Chebyshev fit) [Press et al., Numerical Recipes, erfcc]. */
export function erfc(x: number): number {
  const t = 1 / (1 + 0.5 * x);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return t * Math.exp(-x * x + poly);
}

/** Standard normal distribution function Phi(x) = erfc(-x / sqrt 2) / 2, relative error below 1.2e-7. */
export function normalCdf(x: number): number {
  const e = erfc(Math.abs(x) * Math.SQRT1_2);
  return x >= 0 ? 1 - e / 2 : e / 2;
}
