// @decision-workbench/calibration: probability calibration maths. Pure functions over typed arrays; no I/O.

// binning and reliability diagrams
export { assignBins, massEdges, widthEdges } from "./binning/edges.js";
export {
  calibrationCurve,
  classwiseReliability,
  type ReliabilityBin,
  type ReliabilityOptions,
  reliabilityBins,
} from "./binning/reliability.js";
export { type SmoothCurve, smoothReliability } from "./binning/smooth.js";
// bootstrap and reports
export { bootstrap, pairedBootstrap, subset } from "./bootstrap/bootstrap.js";
export { mulberry32, type Random } from "./bootstrap/random.js";
// calibrators
export { type BetaParams, betaCalibration } from "./calibrators/beta.js";
export {
  type CandidateResult,
  type ChooseOptions,
  type ChooseResult,
  type ChooseVerdict,
  chooseCalibrator,
  SIMPLICITY_ORDER,
} from "./calibrators/choose.js";
export { assignFolds, type CrossFitResult, crossFit } from "./calibrators/cross-fit.js";
export { fitDiagnostics, minItems } from "./calibrators/diagnostics.js";
export { type HistogramParams, histogramBinning } from "./calibrators/histogram.js";
export { type IdentityParams, identityCalibrator } from "./calibrators/identity.js";
export { type IsotonicParams, isotonicCalibrator } from "./calibrators/isotonic.js";
export { type OneVsRestParams, oneVsRest } from "./calibrators/one-vs-rest.js";
export { type PerLabelParams, perLabel } from "./calibrators/per-label.js";
export { type PlattParams, plattScaling } from "./calibrators/platt.js";
export { calibrator, labelCalibrator, METHODS, type Method } from "./calibrators/registry.js";
export {
  binaryTemperatureScaling,
  type TemperatureParams,
  temperatureScaling,
} from "./calibrators/temperature.js";
export type {
  BinaryCalibrator,
  Calibrator,
  FitWarnings,
  Json,
  MulticlassCalibrator,
  MultiLabelCalibrator,
} from "./calibrators/types.js";
export { type VectorParams, vectorScaling } from "./calibrators/vector.js";
export { NOTHING_LEARNED, NothingLearnedError } from "./errors.js";
// the calibration file
export { applyCalibration } from "./file/apply.js";
export { buildCalibrationFile, type CalibrateQuestionOptions, calibrateQuestion } from "./file/build.js";
export {
  type CheckReason,
  type CheckResult,
  checkCalibration,
  type QuestionCheck,
  type RunToCheck,
} from "./file/check.js";
export {
  CALIBRATION_SCHEMA,
  type CalibrationFile,
  CalibrationFileError,
  type CalibrationSource,
  type FileAnswered,
  type FileError,
  type FileLabelMetrics,
  type FileLabelThreshold,
  type FileSelection,
  type FileThreshold,
  type QuestionCalibration,
  type QuestionKind,
} from "./file/schema.js";
export { calibrationFileErrors, parseCalibrationFile, validateCalibrationFile } from "./file/validate.js";
// intervals
export { clopperPearsonInterval, clopperPearsonUpper } from "./intervals/clopper-pearson.js";
export { jeffreysInterval } from "./intervals/jeffreys.js";
export { type RateCount, rateCount } from "./intervals/rate.js";
export { wilsonInterval } from "./intervals/wilson.js";
// metrics
export { type BrierDecomposition, binaryBrier, brier, brierDecomposition } from "./metrics/brier.js";
export {
  accuracy,
  type ClassificationScores,
  confusionMatrix,
  type MultiLabelScores,
  multiLabelScores,
  type OptionScore,
  optionScores,
} from "./metrics/classification.js";
export { debiasedCalibrationError } from "./metrics/debiased.js";
export { classwiseEce, type EceOptions, ece, mce } from "./metrics/ece.js";
export { EceSums } from "./metrics/ece-sums.js";
export { binaryNll, nll } from "./metrics/nll.js";
export { offByOneAccuracy, rps } from "./metrics/rps.js";
export { smoothEce } from "./metrics/smooth-ece.js";
export { smoothEceEstimate } from "./metrics/smooth-ece-bootstrap.js";
export {
  type CalibrationError,
  type CalibrationReport,
  type ConsistencyTest,
  calibrationReport,
  compareRuns,
  type HeadlineMetrics,
  type IntervalMethod,
  type IntervalMethods,
  type ReportOptions,
  type RunComparison,
} from "./report/report.js";
export {
  coverageAtRisk,
  type RiskCoverage,
  riskAtCoverage,
  riskCoverage,
} from "./selective/risk-coverage.js";
// thresholds, selective answering, Unknown
export {
  type AnsweredStats,
  type EscalationOptions,
  type EscalationThreshold,
  escalationThreshold,
} from "./thresholds/escalation.js";
export { type LabelObjective, type LabelThreshold, labelThresholds } from "./thresholds/labels.js";
export type {
  Binary,
  Binning,
  BootstrapOptions,
  Estimate,
  Labelled,
  MultiLabel,
  ProbMatrix,
} from "./types.js";
export { type UnknownStats, unknownAnalytics, unknownStats } from "./unknown/unknown.js";
// views
export { argmax, classView, classViews, multiLabelTop, type TopLabel, topLabel } from "./views.js";
