/** Calibrations (fit, list, import), the fit request, checking a run against a file, and compare. */

import { type CalibrationFile, METHODS } from "@decision-workbench/calibration";
import { type Static, Type } from "typebox";
import {
  CISchema,
  Dict,
  InOrder,
  Name,
  Nullable,
  NumberOrNull,
  OpenObject,
  SplitChoiceSchema,
  SplitSchema,
  StringEnum,
} from "./common.js";
import { COMPARE_RUNS } from "./limits.js";
import { Bin, BinsField, ItemName, LimitField, OffsetField, ResamplesField } from "./reports.js";

const num = Type.Number();
const methodName = StringEnum(METHODS);
const SELECT = ["nll", "brier"] as const;
const EVAL_SPLITS = ["train", "calibration", "test", "crossfit"] as const;

/** A problem of a calibration file (400 invalid_calibration_file details): the calibration package's own. */
export type { FileError } from "@decision-workbench/calibration";

/** The calibration file (decision-workbench/calibration@1): the calibration package types and validates it. */
export const CalibrationFileSchema = OpenObject<CalibrationFile>(
  "a decision-workbench/calibration@1 file (packages/calibration/README.md)",
);

/** One candidate method's held-out results. */
export const Candidate = Type.Object({
  method: methodName,
  heldOut: Nullable(
    Type.Object({
      nll: CISchema,
      brier: CISchema,
      ece: CISchema,
      accuracy: CISchema,
      eceMass: CISchema,
      mce: CISchema,
    }),
  ),
  delta: Nullable(Type.Object({ nll: CISchema, brier: CISchema, ece: CISchema, accuracy: CISchema })),
  improvement: Nullable(CISchema),
  against: Nullable(methodName),
  accepted: Type.Boolean(),
  chosen: Type.Boolean(),
  unknownRate: NumberOrNull(),
  warnings: Type.Array(Type.String()),
  error: Type.Optional(Type.String()),
});
export type Candidate = Static<typeof Candidate>;

/** How one item's method was selected. */
export const Selection = InOrder(
  Type.Object({
    by: StringEnum(["user", "cross-fit", "selection-split"]),
    on: Type.String(),
    folds: Type.Optional(Type.Integer()),
    criterion: StringEnum(SELECT),
    verdict: StringEnum(["forced", "improvement", "indistinguishable", "identity", "degenerate"]),
    note: Type.String(),
  }),
);
export type Selection = Static<typeof Selection>;

/** A stored or returned calibration (fitted, or imported: then without selection, warnings and fit). */
export const Calibration = InOrder(
  Type.Object({
    id: Type.String(),
    runId: Nullable(Type.String()),
    createdAt: Type.String(),
    file: CalibrationFileSchema,
    candidates: Dict(Type.Array(Candidate)),
    before: Dict(Type.Array(Bin)),
    after: Dict(Type.Array(Bin)),
    selection: Type.Optional(Dict(Selection)),
    warnings: Type.Optional(Dict(Type.Array(Type.String()))),
    fit: Type.Optional(
      Type.Object({
        fitSplit: SplitSchema,
        evalSplit: StringEnum(EVAL_SPLITS),
        selectionSplit: Nullable(SplitSchema),
        method: StringEnum(["auto", ...METHODS]),
        select: StringEnum(SELECT),
        folds: Type.Integer(),
        estimatedBy: StringEnum(["evaluation split", "cross-fit"]),
        caveat: Nullable(Type.String()),
        targetRisk: NumberOrNull(),
        conservative: Type.Boolean(),
        n: Dict(
          Type.Object({
            fit: Type.Integer(),
            eval: Type.Integer(),
            selection: Type.Optional(Type.Integer()),
          }),
        ),
      }),
    ),
    skipped: Type.Array(Type.Object({ item: Type.String(), reason: Type.String() })),
    imported: Type.Boolean(),
    /** The name of the person whose token fitted or imported it (`workbench tokens`), else null. */
    createdBy: Nullable(Type.String()),
  }),
);
export type Calibration = Static<typeof Calibration>;

/** POST /api/runs/:id/calibrations body. */
export const FitRequest = Type.Object(
  {
    item: Type.Optional(ItemName),
    fitSplit: Type.Optional(SplitSchema),
    evalSplit: Type.Optional(StringEnum(EVAL_SPLITS)),
    selectionSplit: Type.Optional(
      StringEnum(
        ["train", "calibration", "test"],
        "a third split to compare candidates on (neither fitSplit nor evalSplit)",
      ),
    ),
    method: Type.Optional(
      StringEnum(
        ["auto", ...METHODS],
        `"auto" (chosen by cross-fitting), or a method to force: ${METHODS.join(", ")}`,
      ),
    ),
    methods: Type.Optional(
      Type.Union(
        [
          StringEnum(["auto"]),
          Type.Array(methodName, { minItems: 1, maxItems: METHODS.length, uniqueItems: true }),
        ],
        {
          description: `the candidates of method "auto": "auto" (all), or a list from ${METHODS.join(", ")}`,
        },
      ),
    ),
    targetRisk: Type.Optional(
      Type.Number({ minimum: 0, exclusiveMaximum: 1, description: "an error rate in [0, 1), e.g. 0.05" }),
    ),
    conservative: Type.Optional(Type.Boolean()),
    select: Type.Optional(StringEnum(SELECT)),
    bins: Type.Optional(BinsField),
    resamples: Type.Optional(ResamplesField),
  },
  { additionalProperties: false },
);
export type FitRequest = Static<typeof FitRequest>;

/** GET /api/calibrations query. */
export const CalibrationsQuery = Type.Object(
  { runId: Type.Optional(Name()) },
  { additionalProperties: false },
);

/** POST /api/runs/:id/check body: a stored calibration or a file. */
export const CheckRequest = Type.Object(
  {
    calibrationId: Type.Optional(Name()),
    file: Type.Optional(OpenObject<unknown>()),
    split: Type.Optional(SplitChoiceSchema),
    bins: Type.Optional(BinsField),
  },
  { additionalProperties: false },
);
export type CheckRequest = Static<typeof CheckRequest>;

/** The verdict of checking a run against a calibration file. */
export const RunCheck = Type.Object({
  ok: Type.Boolean(),
  reasons: Type.Array(Type.String()),
  details: Type.Array(
    InOrder(
      Type.Object({
        code: StringEnum([
          "fingerprint-changed",
          "served-by-changed",
          "ece-outside",
          "answered-error-outside",
          "nothing-checked",
        ]),
        question: Type.Optional(Type.String()),
        message: Type.String(),
      }),
    ),
  ),
  questions: Dict(
    Type.Object({
      n: Type.Integer(),
      ece: num,
      ecePlugin: num,
      eceInterval: Nullable(Type.Tuple([num, num])),
      answeredError: NumberOrNull(),
      answeredErrorInterval: Nullable(Type.Tuple([num, num])),
      coverage: num,
      ok: Type.Boolean(),
    }),
  ),
  skipped: Type.Array(Type.String()),
  servedBy: Type.Array(Type.String()),
  runId: Type.String(),
  split: SplitChoiceSchema,
});
export type RunCheck = Static<typeof RunCheck>;

const answer = Nullable(Type.Union([Type.String(), Type.Array(Type.String())]));

/**
 * GET /api/compare: two or more runs on one item, paired against the first (the baseline: every delta is run -
 * first), and a page of the answers that flipped.
 */
export const Comparison = Type.Object({
  item: Type.String(),
  split: Type.String(),
  runs: Type.Array(
    Type.Object({ id: Type.String(), model: Type.String(), servedBy: Type.Array(Type.String()) }),
  ),
  servedModelDiffers: Type.Boolean(),
  n: Type.Integer({ description: "examples usable in every run" }),
  resamples: Type.Integer(),
  metrics: Type.Array(
    Type.Object({
      name: Type.String(),
      values: Type.Array(CISchema),
      deltas: Type.Array(Type.Object({ run: Type.String(), vs: Type.String(), delta: CISchema })),
    }),
  ),
  methods: Type.Object({ values: Type.String(), deltas: Type.String() }),
  bins: Type.Array(Type.Array(Bin)),
  flipped: Type.Object({
    total: Type.Integer(),
    compared: Type.Integer(),
    offset: Type.Integer(),
    rows: Type.Array(
      Type.Object({
        exampleId: Type.String(),
        gold: answer,
        answers: Type.Array(answer),
        statuses: Type.Array(Type.String()),
        confidences: Type.Array(Nullable(Type.Number()), {
          description: "per run, the confidence of its answer (null when it gave none)",
        }),
        positions: Type.Optional(
          Type.Array(Type.Integer({ minimum: 0 }), {
            description:
              "per run, the example's index among its answers of this item and split in run order (GET /api/runs/:id/items with filter all, offset = position)",
          }),
        ),
      }),
    ),
  }),
});
export type Comparison = Static<typeof Comparison>;

/** GET /api/compare query. */
export const CompareQuery = Type.Object(
  {
    runs: Type.String({
      minLength: 3,
      maxLength: 2000,
      pattern: "^[^,]+(,[^,]+)+$",
      description: `two or more run ids separated by commas (at most ${COMPARE_RUNS.max}), e.g. run_a,run_b`,
    }),
    item: Type.Optional(ItemName),
    split: Type.Optional(SplitChoiceSchema),
    bins: Type.Optional(BinsField),
    resamples: Type.Optional(ResamplesField),
    offset: Type.Optional(OffsetField),
    limit: Type.Optional(LimitField),
  },
  { additionalProperties: false },
);
export type CompareQuery = Static<typeof CompareQuery>;
