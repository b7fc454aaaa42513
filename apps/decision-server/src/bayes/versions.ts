/** The checkpoint versions the server trains: same features, different data share, smoothing and calibration. */

import type { Smoothing } from "./compile.js";

/** How one checkpoint version is trained. */
export interface VersionConfig {
  name: string;
  description: string;
  smoothing: Smoothing;
  /** Share of each dataset's `train` split used (chosen by a hash of the example id). */
  trainShare: "half" | "all";
  /** "fit": a temperature fitted on a held-out fifth of the train share; "none": raw naive Bayes. */
  temperature: "none" | "fit";
}

/** Every checkpoint version, oldest first. */
export const VERSIONS: readonly VersionConfig[] = [
  {
    name: "bayes-1",
    description:
      "naive Bayes checkpoints trained on half of each train split, raw (no temperature): over-confident",
    smoothing: { alpha: 1, varianceShare: 1e-3 },
    trainShare: "half",
    temperature: "none",
  },
  {
    name: "bayes-2",
    description:
      "naive Bayes checkpoints trained on the whole train split, with a temperature fitted on a held-out fifth of it",
    smoothing: { alpha: 0.5, varianceShare: 1e-2 },
    trainShare: "all",
    temperature: "fit",
  },
];

/** The version `workbench-latest` resolves to unless told otherwise. */
export const DEFAULT_LATEST = "bayes-2";

/** The alias whose target a start-up flag chooses. */
export const LATEST_ALIAS = "workbench-latest";
