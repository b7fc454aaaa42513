/**
 * Reports and items: GET /api/runs/:id/report, report.json and items. Property order is the order the analysis
 * builds them in (the serializer writes properties in schema order).
 */

import { type Static, Type } from "typebox";
import {
  AnyValue,
  CISchema,
  Dict,
  InOrder,
  MaybeCISchema,
  Name,
  Nullable,
  NumberOrNull,
  SplitChoiceSchema,
  StringEnum,
} from "./common.js";
import { ItemSpec } from "./datasets.js";
import { BINS, ITEMS_PAGE, RESAMPLES } from "./limits.js";
import { RunStatusSchema } from "./runs.js";

const num = Type.Number();
const maybeNum = NumberOrNull();

/** One reliability bin: mean confidence, accuracy and its Wilson or Jeffreys interval (null when empty). */
export const Bin = Type.Object({
  lo: num,
  hi: num,
  count: Type.Integer(),
  confidence: maybeNum,
  accuracy: maybeNum,
  low: maybeNum,
  high: maybeNum,
  sparse: Type.Boolean({ description: "fewer than 10 items" }),
});
export type Bin = Static<typeof Bin>;

/** One bar of the confidence histogram: answers in [lo, hi) right and wrong. */
export const HistogramBar = Type.Object({ lo: num, hi: num, right: Type.Integer(), wrong: Type.Integer() });
export type HistogramBar = Static<typeof HistogramBar>;

/** A rate as x of n with its 95 % Wilson interval (value, low and high null when n is 0). */
export const Rate = Type.Object({
  x: Type.Integer(),
  n: Type.Integer(),
  value: maybeNum,
  low: maybeNum,
  high: maybeNum,
});
export type Rate = Static<typeof Rate>;

/** x of n with its 95 % Wilson interval ([0, 1] when n is 0), as the calibration library gives it. */
const RateCount = Type.Object({
  x: Type.Integer(),
  n: Type.Integer(),
  interval: Type.Tuple([num, num]),
});

/** Per-option reliability, scores and rates. */
export const OptionReport = InOrder(
  Type.Object({
    option: Type.String(),
    bins: Type.Array(Bin),
    precision: num,
    recall: num,
    f1: num,
    support: Type.Integer(),
    predicted: Type.Integer(),
    counts: Type.Optional(Type.Object({ precision: RateCount, recall: RateCount })),
    rates: Type.Object({ precision: Rate, recall: Rate }),
    ece: Type.Optional(
      Type.Object(
        { estimate: MaybeCISchema, plain: num, resamples: Type.Integer() },
        { description: "classwise view only: the option's one-vs-rest ECE" },
      ),
    ),
  }),
);
export type OptionReport = Static<typeof OptionReport>;

/** An item's metrics: headline ones with intervals, secondary ones with intervals when resampled. */
export const Metrics = Type.Object({
  accuracy: CISchema,
  ece: CISchema,
  eceMass: CISchema,
  mce: CISchema,
  mceMass: CISchema,
  brier: CISchema,
  nll: CISchema,
  classwiseEce: CISchema,
  smoothEce: MaybeCISchema,
  debiasedL2: CISchema,
  microF1: Type.Optional(MaybeCISchema),
  macroF1: Type.Optional(MaybeCISchema),
  rps: Type.Optional(MaybeCISchema),
  offByOne: Type.Optional(MaybeCISchema),
});
export type Metrics = Static<typeof Metrics>;

const method = Type.Optional(Type.String());
/** How each metric's interval was obtained, in words with its reference; absent: no interval. */
export const IntervalMethods = Type.Object({
  accuracy: method,
  ece: method,
  eceMass: method,
  mce: method,
  mceMass: method,
  brier: method,
  nll: method,
  classwiseEce: method,
  debiasedL2: method,
  smoothEce: method,
  microF1: method,
  macroF1: method,
  rps: method,
  offByOne: method,
});
export type IntervalMethods = Static<typeof IntervalMethods>;

/** The consistency test of an item's top-label calibration [Brocker & Smith 2007]. */
export const Consistency = Type.Object({
  statistic: StringEnum(["ece"]),
  pValue: num,
  resamples: Type.Integer(),
  method: Type.String(),
});
export type Consistency = Static<typeof Consistency>;

/** One point of the risk-coverage curve: answer alone at confidence >= threshold. */
export const RiskPoint = Type.Object({ threshold: num, coverage: num, risk: num, escalated: Type.Integer() });
export type RiskPoint = Static<typeof RiskPoint>;

/** A multi-label item's per-label threshold curve and its F1-tuned threshold. */
export const LabelCurve = Type.Object({
  label: Type.String(),
  curve: Type.Array(Type.Object({ t: num, precision: num, recall: num, f1: num })),
  tuned: maybeNum,
  f1At05: num,
  f1Tuned: num,
  f1TunedHeldOut: Type.Optional(maybeNum),
});
export type LabelCurve = Static<typeof LabelCurve>;

/** Unknown (`not stated`) as an abstention. */
export const UnknownReport = Type.Object({
  predictedRate: num,
  goldRate: num,
  precision: maybeNum,
  recall: maybeNum,
  f1: num,
  riskAnswered: maybeNum,
  predicted: Type.Integer(),
  gold: Type.Integer(),
  rates: Type.Object({ predicted: Rate, gold: Rate, precision: Rate, recall: Rate, riskAnswered: Rate }),
});
export type UnknownReport = Static<typeof UnknownReport>;

/** Everything the workbench shows about one item of one run on one split (or all). */
export const ItemReport = Type.Object({
  item: ItemSpec,
  split: Type.String(),
  n: Type.Integer({ description: "usable rows: not escalated, with an output and a gold label" }),
  counts: Type.Object({
    total: Type.Integer(),
    answered: Type.Integer(),
    unknown: Type.Integer(),
    escalated: Type.Integer(),
    invalid: Type.Integer(),
    unlabelled: Type.Integer(),
  }),
  resamples: Type.Object({ headline: Type.Integer(), secondary: Type.Integer(), classwise: Type.Integer() }),
  seed: Type.Integer(),
  level: num,
  metrics: Nullable(Metrics),
  intervals: Nullable(IntervalMethods),
  rateInterval: Type.String(),
  bins: Type.Object({
    width: Type.Array(Bin),
    mass: Type.Array(Bin),
    count: Type.Integer(),
    binning: StringEnum(["width", "mass"]),
    view: StringEnum(["top", "classwise"]),
  }),
  perOption: Type.Array(OptionReport),
  histogram: Type.Array(HistogramBar),
  riskCoverage: Type.Array(RiskPoint),
  aurc: maybeNum,
  consistency: Type.Optional(Consistency),
  plugin: Type.Optional(
    Type.Object(
      {
        ece: num,
        eceMass: num,
        mce: num,
        mceMass: num,
        classwiseEce: num,
        debiasedL2: num,
        smoothEce: num,
      },
      { description: "the plain (plug-in) calibration errors, which the bins show" },
    ),
  ),
  smooth: Type.Optional(Type.Array(Type.Object({ x: num, y: num, density: num }))),
  confusion: Type.Optional(
    Type.Object({ labels: Type.Array(Type.String()), matrix: Type.Array(Type.Array(Type.Integer())) }),
  ),
  thresholds: Type.Optional(Type.Array(LabelCurve)),
  unknown: Type.Optional(UnknownReport),
});
export type ItemReport = Static<typeof ItemReport>;

/** GET /api/runs/:id/report.json: every item's report. */
export const RunReport = Type.Object({
  run: Type.Object({
    id: Type.String(),
    dataset: Type.String(),
    datasetHash: Type.String(),
    endpoint: Type.String(),
    model: Type.String(),
    fingerprint: Type.String(),
    status: RunStatusSchema,
    splits: Type.Array(Type.String()),
  }),
  split: Type.String(),
  items: Type.Array(ItemReport),
});
export type RunReport = Static<typeof RunReport>;

const answer = Nullable(Type.Union([Type.String(), Type.Array(Type.String())]));

/** Filters of the items endpoint. */
export const ITEM_FILTERS = ["all", "wrong", "confident-wrong", "unknown", "escalated"] as const;
export type ItemsFilter = (typeof ITEM_FILTERS)[number];

/** One row of GET /api/runs/:id/items. */
export const ItemRow = Type.Object({
  exampleId: Type.String(),
  split: Type.String(),
  state: AnyValue,
  gold: answer,
  status: StringEnum(["answered", "unknown", "escalated"]),
  answer,
  confidence: maybeNum,
  probabilities: Nullable(Dict(num)),
  correct: Nullable(Type.Boolean({ description: "null: not measured (escalated, no output or no gold)" })),
  reason: Nullable(Type.String()),
  reasoning: Nullable(Type.String()),
  servedBy: Nullable(Type.String()),
});
export type ItemRow = Static<typeof ItemRow>;

/** GET /api/runs/:id/items. */
export const ItemsPage = Type.Object({
  total: Type.Integer(),
  offset: Type.Integer(),
  rows: Type.Array(ItemRow),
});
export type ItemsPage = Static<typeof ItemsPage>;

/** An item of the run's dataset. */
export const ItemName = Name("an item of the run's dataset");
/** Bins of a report. */
export const BinsField = Type.Integer({
  minimum: BINS.min,
  maximum: BINS.max,
  description: `an integer from ${BINS.min} to ${BINS.max} (${BINS.default})`,
});
/** Bootstrap resamples. */
export const ResamplesField = Type.Integer({
  minimum: RESAMPLES.min,
  maximum: RESAMPLES.max,
  description: `an integer from ${RESAMPLES.min} to ${RESAMPLES.max}`,
});
const ciMode = StringEnum(["auto", "all", "headline"]);

/** GET /api/runs/:id/report query. */
export const ReportQuery = Type.Object(
  {
    item: Type.Optional(ItemName),
    split: Type.Optional(SplitChoiceSchema),
    bins: Type.Optional(BinsField),
    binning: Type.Optional(StringEnum(["width", "mass"])),
    view: Type.Optional(StringEnum(["top", "classwise"])),
    resamples: Type.Optional(ResamplesField),
    interval: Type.Optional(StringEnum(["wilson", "jeffreys"])),
    ci: Type.Optional(ciMode),
  },
  { additionalProperties: false },
);
export type ReportQuery = Static<typeof ReportQuery>;

/** GET /api/runs/:id/report.json query. */
export const RunReportQuery = Type.Object(
  {
    split: Type.Optional(SplitChoiceSchema),
    bins: Type.Optional(BinsField),
    resamples: Type.Optional(ResamplesField),
    ci: Type.Optional(ciMode),
  },
  { additionalProperties: false },
);

/** Offset of a page. */
export const OffsetField = Type.Integer({ minimum: 0, maximum: 10_000_000 });
/** Rows of a page. */
export const LimitField = Type.Integer({
  minimum: 1,
  maximum: ITEMS_PAGE.max,
  description: `an integer from 1 to ${ITEMS_PAGE.max} (${ITEMS_PAGE.default})`,
});

/** GET /api/runs/:id/items query. */
export const ItemsQuery = Type.Object(
  {
    item: Type.Optional(ItemName),
    split: Type.Optional(SplitChoiceSchema),
    filter: Type.Optional(StringEnum(ITEM_FILTERS)),
    label: Type.Optional(Name()),
    offset: Type.Optional(OffsetField),
    limit: Type.Optional(LimitField),
  },
  { additionalProperties: false },
);
export type ItemsQuery = Static<typeof ItemsQuery>;

/** GET /api/runs/:id/export.csv and export.json query. */
export const ExportQuery = Type.Object(
  { item: Type.Optional(ItemName), split: Type.Optional(SplitChoiceSchema) },
  { additionalProperties: false },
);

const maybeStr = Nullable(Type.String());
/** One exported decision (example x item): a row of export.csv, an element of export.json. Never a key. */
export const ExportRow = Type.Object({
  runId: Type.String(),
  exampleId: Type.String(),
  split: Type.String(),
  item: Type.String(),
  gold: answer,
  status: Type.String(),
  answer,
  confidence: maybeNum,
  unknown: maybeNum,
  probabilities: Nullable(Dict(num)),
  reason: maybeStr,
  servedBy: maybeStr,
  model: maybeStr,
  endpoint: maybeStr,
  ms: maybeNum,
  inputTokens: maybeNum,
  outputTokens: maybeNum,
  reasoningTokens: maybeNum,
  cost: maybeNum,
  reasoning: Nullable(Type.Union([Type.String(), Dict(Type.String())])),
});
export type ExportRow = Static<typeof ExportRow>;

/** The streamed exports as the OpenAPI document shows them (streams are never re-serialised). */
export const exportResponses = {
  csv: {
    description: "one row per example x item, the columns of ExportRow in order",
    content: { "text/csv": { schema: Type.String() } },
  },
  json: {
    description: "a JSON array of ExportRow",
    content: { "application/json": { schema: Type.Array(ExportRow) } },
  },
} as const;
