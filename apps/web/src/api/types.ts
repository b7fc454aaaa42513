/**
 * Shapes of the workbench HTTP API, imported from the API itself (`@decision-workbench/api`, type-only: nothing of
 * it is bundled), plus the few views the web app adds. API.md documents each shape.
 */

import type {
  ValidationError as DatasetValidationError,
  FitRequest,
  ItemReport,
  ItemSpec,
  ItemsFilter,
  LabelCurve,
  MaybeCI,
  OptionReport,
  RiskPoint,
  ServerView,
} from "@decision-workbench/api";

export type {
  Bin,
  Calibration,
  Candidate,
  Comparison,
  DatasetDetail,
  DatasetSummary,
  ExamplePage,
  FileError,
  ItemReport,
  ItemRow,
  OptionReport,
  Progress,
  ReportMetrics,
  RunCheck,
  RunEstimate,
  RunInput,
  RunStatus,
  RunSummary,
  ServerCheck,
  ServerInput,
  Split,
  Task,
} from "@decision-workbench/api";

/** A registered decision server as the API shows it (the key itself is never returned). */
export type Server = ServerView;
/** An item of a dataset as reports and summaries show it: name, kind, option names, whether Unknown is allowed. */
export type ItemSummary = ItemSpec;
/** An item's question kind. */
export type ItemKind = ItemSpec["kind"];
/**
 * [point, low, high] as the web reads it: low and high are null for a secondary metric that was not resampled
 * (the API's headline `CI` always has them, and fits this too).
 */
export type CI = MaybeCI;
/** A rate as x of n with its 95 % Wilson interval (value, low and high null when n is 0). */
export type Rate = OptionReport["rates"]["precision"];
/** The consistency test of an item's calibration [Brocker & Smith 2007]. */
export type Consistency = NonNullable<ItemReport["consistency"]>;
/** Filters of the items table. */
export type ItemFilter = ItemsFilter;
/** One point of the risk-coverage curve. */
export type RiskCoveragePoint = RiskPoint;
/** Per-label threshold curve of a multi-label item. */
export type LabelThresholds = LabelCurve;
/** POST /api/runs/:id/calibrations. */
export type CalibrationInput = FitRequest;

/**
 * A located error as the web lists it: a dataset validation error of the API (400 invalid_dataset details), or one
 * the upload form found before sending (then without a code).
 */
export type ValidationError = Omit<DatasetValidationError, "code"> & { code?: string };
