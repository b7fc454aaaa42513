import { betaCalibration } from "./beta.js";
import { histogramBinning } from "./histogram.js";
import { identityCalibrator } from "./identity.js";
import { isotonicCalibrator } from "./isotonic.js";
import { oneVsRest } from "./one-vs-rest.js";
import { perLabel } from "./per-label.js";
import { plattScaling } from "./platt.js";
import { binaryTemperatureScaling, temperatureScaling } from "./temperature.js";
import type { BinaryCalibrator, MulticlassCalibrator, MultiLabelCalibrator } from "./types.js";
import { vectorScaling } from "./vector.js";

/** The calibration methods by the names the calibration file uses. */
export const METHODS = [
  "identity",
  "temperature",
  "vector",
  "platt",
  "isotonic",
  "histogram",
  "beta",
] as const;

/** A calibration method name. */
export type Method = (typeof METHODS)[number];

function unknown(name: unknown, fn: string): never {
  throw new RangeError(
    `${fn}: unknown method ${JSON.stringify(name)}; expected one of ${METHODS.join(", ")}`,
  );
}

function binary(name: Method, fn: string): BinaryCalibrator | null {
  switch (name) {
    case "platt":
      return plattScaling();
    case "isotonic":
      return isotonicCalibrator();
    case "histogram":
      return histogramBinning();
    case "beta":
      return betaCalibration();
    case "temperature":
      return binaryTemperatureScaling();
    case "identity":
    case "vector":
      return null;
    default:
      return unknown(name, fn);
  }
}

/** The multiclass calibrator of a method (binary methods one-vs-rest). */
export function calibrator(name: Method): MulticlassCalibrator {
  if (name === "identity") return identityCalibrator();
  if (name === "temperature") return temperatureScaling();
  if (name === "vector") return vectorScaling();
  return oneVsRest(binary(name, "calibrator")!);
}

const identityLabels: MultiLabelCalibrator<{ labels: Record<string, never>[] }> = {
  name: "identity",
  fit(data) {
    return perLabel<Record<string, never>>({
      name: "identity",
      fit: () => ({}),
      apply: (_p, x) => Float64Array.from(x),
    }).fit(data);
  },
  apply(_params, m) {
    return Float64Array.from(m.probs);
  },
};

/** The per-label calibrator of a method for multi-label questions ("vector" has no per-label form). */
export function labelCalibrator(name: Method): MultiLabelCalibrator {
  if (name === "identity") return identityLabels;
  if (name === "vector") {
    throw new RangeError(
      'labelCalibrator: "vector" scaling has no per-label form; use "platt" (per-label bias and scale)',
    );
  }
  return perLabel(binary(name, "labelCalibrator")!);
}
