// Shared numerics of the scaling calibrators. Internal.

/** Probabilities are clipped to [CLIP, 1 - CLIP] before any logit or log. */
export const CLIP = 1e-6;

/** log(p / (1 - p)) of p clipped to [1e-6, 1 - 1e-6]. */
export function logit(p: number): number {
  const q = Math.min(1 - CLIP, Math.max(CLIP, p));
  return Math.log(q / (1 - q));
}

/** Logistic function, stable for large |z|. */
function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

/**
 * A calibrated probability kept inside [1e-6, 1 - 1e-6], the clip of the inputs: no calibrator answers 0 or 1, so
 * its first mistake costs at most -ln(1e-6) = 13.8 nats of log-loss, never infinity.
 */
export function clippedSigmoid(z: number): number {
  return Math.min(1 - CLIP, Math.max(CLIP, sigmoid(z)));
}

/** A finite, positive number checked in params. */
export function checkParam(value: unknown, name: string, calibrator: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new TypeError(
      `${calibrator}: params.${name} must be a finite number, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}
