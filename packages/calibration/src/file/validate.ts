import { METHODS, type Method } from "../calibrators/registry.js";
import { CALIBRATION_SCHEMA, type CalibrationFile, CalibrationFileError, type FileError } from "./schema.js";

const KINDS = ["choice", "yesno", "score", "multi"];
const ESTIMATED_BY = ["evaluation split", "cross-fit"];
const SELECTED_BY = ["user", "cross-fit", "selection-split"];
const VERDICTS = ["forced", "improvement", "indistinguishable", "identity", "degenerate"];
const list = (xs: string[]) => xs.map((x) => JSON.stringify(x)).join(", ");

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => x !== null && typeof x === "object" && !Array.isArray(x);
const isNum = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
const show = (x: unknown) => (x === undefined ? "missing" : JSON.stringify(x));

class Checker {
  readonly errors: FileError[] = [];
  add(path: string, message: string): void {
    this.errors.push({ path, message });
  }
  string(o: Obj, key: string, path: string): string | undefined {
    const v = o[key];
    if (typeof v !== "string" || v.length === 0) {
      this.add(`${path}${key}`, `${show(v)}; expected a non-empty string`);
      return undefined;
    }
    return v;
  }
  object(o: Obj, key: string, path: string): Obj | undefined {
    const v = o[key];
    if (!isObj(v)) {
      this.add(`${path}${key}`, `${show(v)}; expected an object`);
      return undefined;
    }
    return v;
  }
  numbers(
    v: unknown,
    path: string,
    opts: { min?: number; max?: number; length?: number; sorted?: boolean } = {},
  ): boolean {
    if (!Array.isArray(v) || !v.every(isNum)) {
      this.add(path, `${show(v)}; expected an array of finite numbers`);
      return false;
    }
    if (opts.length !== undefined && v.length !== opts.length) {
      this.add(path, `has ${v.length} numbers; expected ${opts.length}`);
      return false;
    }
    if (v.length === 0) {
      this.add(path, "is empty; expected at least one number");
      return false;
    }
    if (opts.min !== undefined && v.some((x) => x < opts.min!))
      this.add(path, `has a value below ${opts.min}`);
    if (opts.max !== undefined && v.some((x) => x > opts.max!))
      this.add(path, `has a value above ${opts.max}`);
    if (opts.sorted && v.some((x, i) => i > 0 && x < v[i - 1])) this.add(path, "must be non-decreasing");
    return true;
  }
  number(o: Obj, key: string, path: string, min?: number, max?: number, exclusiveMin = false): void {
    const v = o[key];
    if (!isNum(v)) this.add(`${path}${key}`, `${show(v)}; expected a finite number`);
    else if (min !== undefined && (exclusiveMin ? v <= min : v < min)) {
      this.add(`${path}${key}`, `${v}; expected a number ${exclusiveMin ? ">" : ">="} ${min}`);
    } else if (max !== undefined && v > max) this.add(`${path}${key}`, `${v}; expected a number <= ${max}`);
  }
}

function binaryParams(c: Checker, method: Method, p: unknown, path: string): void {
  if (!isObj(p)) {
    c.add(path, `${show(p)}; expected the ${method} params object`);
    return;
  }
  const at = `${path}.`;
  switch (method) {
    case "platt":
      c.number(p, "a", at);
      c.number(p, "b", at);
      break;
    case "beta":
      c.number(p, "a", at, 0);
      c.number(p, "b", at, 0);
      c.number(p, "c", at);
      break;
    case "temperature":
      c.number(p, "temperature", at, 0, undefined, true);
      break;
    case "isotonic":
      if (c.numbers(p.x, `${at}x`, { sorted: true })) {
        c.numbers(p.y, `${at}y`, { min: 0, max: 1, length: (p.x as number[]).length, sorted: true });
      }
      break;
    case "histogram":
      if (c.numbers(p.values, `${at}values`, { min: 0, max: 1 })) {
        c.numbers(p.edges, `${at}edges`, { length: (p.values as number[]).length + 1, sorted: true });
      }
      break;
    case "identity":
      break;
    default:
      c.add(path, `method ${method} has no binary form`);
  }
}

function questionParams(c: Checker, kind: string, method: Method, k: number, p: Obj, path: string): void {
  if (method === "identity") return;
  if (kind === "multi") {
    if (method === "vector") {
      c.add(`${path}.method`, '"vector" has no per-label form for multi-label questions; use "platt"');
      return;
    }
    if (!Array.isArray(p.labels) || p.labels.length !== k) {
      c.add(`${path}.params.labels`, `${show(p.labels)}; expected one params object per option (${k})`);
      return;
    }
    for (let j = 0; j < k; j++) binaryParams(c, method, p.labels[j], `${path}.params.labels[${j}]`);
    return;
  }
  if (method === "temperature") {
    c.number(p, "temperature", `${path}.params.`, 0, undefined, true);
    return;
  }
  if (method === "vector") {
    c.number(p, "temperature", `${path}.params.`, 0, undefined, true);
    c.numbers(p.bias, `${path}.params.bias`, { length: k });
    return;
  }
  if (k === 2) {
    if (!("positive" in p))
      c.add(`${path}.params.positive`, `missing; two-option ${method} params hold { positive }`);
    else binaryParams(c, method, p.positive, `${path}.params.positive`);
    return;
  }
  if (!Array.isArray(p.classes) || p.classes.length !== k) {
    c.add(`${path}.params.classes`, `${show(p.classes)}; expected one params object per option (${k})`);
    return;
  }
  for (let j = 0; j < k; j++) binaryParams(c, method, p.classes[j], `${path}.params.classes[${j}]`);
}

function metrics(c: Checker, m: unknown, path: string): void {
  if (m === undefined) return;
  if (!isObj(m)) {
    c.add(path, `${show(m)}; expected { before?, after } of [point, low, high] triples`);
    return;
  }
  for (const side of Object.keys(m)) {
    if (side === "estimated_by") {
      if (!ESTIMATED_BY.includes(m[side] as string))
        c.add(
          `${path}.estimated_by`,
          `${show(m[side])}; expected one of ${ESTIMATED_BY.map((x) => JSON.stringify(x)).join(", ")}`,
        );
      continue;
    }
    if (side !== "before" && side !== "after") {
      c.add(`${path}.${side}`, 'unknown key; expected "before", "after" or "estimated_by"');
      continue;
    }
    const s = m[side];
    if (!isObj(s)) {
      c.add(`${path}.${side}`, `${show(s)}; expected an object of metric -> [point, low, high]`);
      continue;
    }
    for (const [name, v] of Object.entries(s)) {
      const at = `${path}.${side}.${name}`;
      if (!Array.isArray(v) || v.length !== 3 || !v.every(isNum))
        c.add(at, `${show(v)}; expected [point, low, high]`);
      else if (!(v[1] <= v[0] + 1e-12 && v[0] <= v[2] + 1e-12)) c.add(at, "expected low <= point <= high");
    }
  }
}

const QUESTION_KEYS = [
  "kind",
  "options",
  "method",
  "params",
  "threshold",
  "metrics",
  "selection",
  "warnings",
  "label_thresholds",
  "label_metrics",
  "answered",
];

function estimate(c: Checker, v: unknown, path: string, min?: number, max?: number): void {
  if (!Array.isArray(v) || v.length !== 3 || !v.every(isNum))
    c.add(path, `${show(v)}; expected [point, low, high]`);
  else if (!(v[1] <= v[0] + 1e-12 && v[0] <= v[2] + 1e-12)) c.add(path, "expected low <= point <= high");
  else if ((min !== undefined && v[1] < min) || (max !== undefined && v[2] > max))
    c.add(path, `expected values in [${min}, ${max}]`);
}

function selection(c: Checker, s: unknown, path: string): void {
  if (!isObj(s)) {
    c.add(path, `${show(s)}; expected { by, folds?, criterion, verdict, note }`);
    return;
  }
  if (!SELECTED_BY.includes(s.by as string))
    c.add(`${path}.by`, `${show(s.by)}; expected one of ${list(SELECTED_BY)}`);
  if (s.folds !== undefined && !(Number.isInteger(s.folds) && (s.folds as number) >= 2))
    c.add(`${path}.folds`, `${show(s.folds)}; expected an integer >= 2`);
  if (s.criterion !== "nll" && s.criterion !== "brier")
    c.add(`${path}.criterion`, `${show(s.criterion)}; expected "nll" or "brier"`);
  if (!VERDICTS.includes(s.verdict as string))
    c.add(`${path}.verdict`, `${show(s.verdict)}; expected one of ${list(VERDICTS)}`);
  else if ((s.verdict === "forced") !== (s.by === "user"))
    c.add(`${path}.verdict`, `${show(s.verdict)}; "forced" goes with by "user" and only with it`);
  c.string(s, "note", `${path}.`);
  for (const key of Object.keys(s)) {
    if (!["by", "folds", "criterion", "verdict", "note"].includes(key))
      c.add(`${path}.${key}`, "unknown field; expected by, folds, criterion, verdict, note");
  }
}

/** What a per-label list of a multi-label question holds: its name in messages, its entries' shape and their check. */
interface PerLabelList {
  what: string;
  shape: string;
  entry(c: Checker, t: Record<string, unknown>, at: string): void;
}

/**
 * A multi-label question's per-label list: an array of objects of `list.shape`, each with a label among the
 * question's options; `list.entry` checks each one's other fields, in the file's order.
 */
function perLabel(
  c: Checker,
  v: unknown,
  kind: string | undefined,
  options: unknown[],
  path: string,
  list: PerLabelList,
): void {
  if (kind !== undefined && kind !== "multi") c.add(path, `only multi-label questions have ${list.what}`);
  if (!Array.isArray(v)) {
    c.add(path, `${show(v)}; expected an array of ${list.shape}`);
    return;
  }
  v.forEach((t, j) => {
    const at = `${path}[${j}]`;
    if (!isObj(t)) {
      c.add(at, `${show(t)}; expected ${list.shape}`);
      return;
    }
    const label = c.string(t, "label", `${at}.`);
    if (label !== undefined && options.length > 0 && !options.includes(label))
      c.add(`${at}.label`, `${show(label)}; expected one of the question's options`);
    list.entry(c, t, at);
  });
}

function itemCount(c: Checker, t: Record<string, unknown>, at: string): void {
  if (!(Number.isInteger(t.n) && (t.n as number) >= 0))
    c.add(`${at}.n`, `${show(t.n)}; expected an item count`);
}

function labelThreshold(c: Checker, t: Record<string, unknown>, at: string): void {
  c.number(t, "threshold", `${at}.`, 0, 1);
  itemCount(c, t, at);
  estimate(c, t.f1, `${at}.f1`, 0, 1);
}

function labelMetric(c: Checker, t: Record<string, unknown>, at: string): void {
  itemCount(c, t, at);
  for (const side of ["before", "after"] as const) {
    const m = t[side];
    if (!isObj(m)) {
      c.add(`${at}.${side}`, `${show(m)}; expected { ece, nll }`);
      continue;
    }
    estimate(c, m.ece, `${at}.${side}.ece`, 0, 1);
    estimate(c, m.nll, `${at}.${side}.nll`, 0);
    for (const key of Object.keys(m)) {
      if (key !== "ece" && key !== "nll") c.add(`${at}.${side}.${key}`, "unknown field; expected ece, nll");
    }
  }
  for (const key of Object.keys(t)) {
    if (!["label", "n", "before", "after"].includes(key))
      c.add(`${at}.${key}`, "unknown field; expected label, n, before, after");
  }
}

const PER_LABEL: Record<"label_thresholds" | "label_metrics", PerLabelList> = {
  label_thresholds: { what: "label thresholds", shape: "{ label, threshold, n, f1 }", entry: labelThreshold },
  label_metrics: {
    what: "label metrics",
    shape: "{ label, n, before: { ece, nll }, after: { ece, nll } }",
    entry: labelMetric,
  },
};

function answered(c: Checker, a: unknown, path: string): void {
  if (!isObj(a)) {
    c.add(path, `${show(a)}; expected { share, error, n }`);
    return;
  }
  c.number(a, "share", `${path}.`, 0, 1);
  estimate(c, a.error, `${path}.error`, 0, 1);
  if (!(Number.isInteger(a.n) && (a.n as number) >= 0))
    c.add(`${path}.n`, `${show(a.n)}; expected an item count`);
}

function question(c: Checker, name: string, q: unknown): void {
  const path = `questions.${name}`;
  if (!isObj(q)) {
    c.add(path, `${show(q)}; expected a question calibration object`);
    return;
  }
  const kind = c.string(q, "kind", `${path}.`);
  if (kind !== undefined && !KINDS.includes(kind))
    c.add(`${path}.kind`, `${show(kind)}; expected one of ${KINDS.join(", ")}`);
  const options = q.options;
  let k = 0;
  if (
    !Array.isArray(options) ||
    options.length === 0 ||
    !options.every((o) => typeof o === "string" && o.length > 0)
  ) {
    c.add(`${path}.options`, `${show(options)}; expected a non-empty array of option names`);
  } else {
    k = options.length;
    if (new Set(options).size !== k) c.add(`${path}.options`, "has duplicate option names");
    if (kind !== "multi" && k < 2)
      c.add(`${path}.options`, "a single-answer question needs at least 2 options");
  }
  const method = q.method;
  if (typeof method !== "string" || !METHODS.includes(method as Method)) {
    c.add(`${path}.method`, `${show(method)}; expected one of ${METHODS.join(", ")}`);
  }
  if (!isObj(q.params)) c.add(`${path}.params`, `${show(q.params)}; expected an object`);
  else if (kind && KINDS.includes(kind) && k > 0 && METHODS.includes(method as Method)) {
    questionParams(c, kind, method as Method, k, q.params, path);
  }
  if (q.threshold !== undefined) {
    if (!isObj(q.threshold))
      c.add(`${path}.threshold`, `${show(q.threshold)}; expected { target_risk, min_confidence }`);
    else {
      c.number(q.threshold, "target_risk", `${path}.threshold.`, 0, 1);
      if (q.threshold.chosen_on !== undefined) c.string(q.threshold, "chosen_on", `${path}.threshold.`);
      for (const key of Object.keys(q.threshold)) {
        if (!["target_risk", "min_confidence", "chosen_on"].includes(key))
          c.add(`${path}.threshold.${key}`, "unknown field; expected target_risk, min_confidence, chosen_on");
      }
      const mc = q.threshold.min_confidence;
      if (mc !== null && !(isNum(mc) && mc >= 0 && mc <= 1)) {
        c.add(
          `${path}.threshold.min_confidence`,
          `${show(mc)}; expected a number in [0, 1], or null to escalate all`,
        );
      }
    }
  }
  metrics(c, q.metrics, `${path}.metrics`);
  if (q.selection !== undefined) selection(c, q.selection, `${path}.selection`);
  if (q.warnings !== undefined) {
    if (!Array.isArray(q.warnings) || !q.warnings.every((w) => typeof w === "string" && w.length > 0))
      c.add(`${path}.warnings`, `${show(q.warnings)}; expected an array of non-empty strings`);
  }
  for (const key of ["label_thresholds", "label_metrics"] as const) {
    if (q[key] !== undefined)
      perLabel(c, q[key], kind, Array.isArray(options) ? options : [], `${path}.${key}`, PER_LABEL[key]);
  }
  if (q.answered !== undefined) answered(c, q.answered, `${path}.answered`);
  for (const key of Object.keys(q)) {
    if (!QUESTION_KEYS.includes(key))
      c.add(`${path}.${key}`, `unknown field; expected one of ${QUESTION_KEYS.join(", ")}`);
  }
}

/** Every problem of a would-be calibration file, each with its path; empty when the file is valid. */
export function calibrationFileErrors(doc: unknown): FileError[] {
  const c = new Checker();
  if (!isObj(doc)) {
    c.add("(root)", `${show(doc)}; expected a JSON object with "schema": "${CALIBRATION_SCHEMA}"`);
    return c.errors;
  }
  const schema = doc.schema;
  if (schema !== CALIBRATION_SCHEMA) {
    if (schema === undefined) c.add("schema", `missing; expected "${CALIBRATION_SCHEMA}"`);
    else if (typeof schema === "string" && schema.startsWith("decision-workbench/calibration@")) {
      c.add(
        "schema",
        `${show(schema)} is a version this library cannot read; expected "${CALIBRATION_SCHEMA}"`,
      );
    } else
      c.add("schema", `${show(schema)} is not a calibration file schema; expected "${CALIBRATION_SCHEMA}"`);
    return c.errors;
  }
  const created = c.string(doc, "created_at", "");
  if (
    created !== undefined &&
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(created)
  ) {
    c.add("created_at", `${show(created)}; expected an ISO 8601 date-time such as "2026-11-21T10:00:00Z"`);
  }
  const source = c.object(doc, "source", "");
  if (source) {
    for (const key of ["fingerprint", "endpoint", "model", "fit_split", "eval_split"])
      c.string(source, key, "source.");
    const sb = source.served_by;
    if (!Array.isArray(sb) || !sb.every((s) => typeof s === "string")) {
      c.add("source.served_by", `${show(sb)}; expected an array of model names`);
    }
    const ds = c.object(source, "dataset", "source.");
    if (ds) {
      c.string(ds, "name", "source.dataset.");
      const sha = c.string(ds, "sha256", "source.dataset.");
      if (sha !== undefined && !/^[0-9a-f]{64}$/.test(sha)) {
        c.add("source.dataset.sha256", `${show(sha)}; expected 64 lowercase hex digits`);
      }
    }
  }
  const questions = c.object(doc, "questions", "");
  if (questions) {
    const names = Object.keys(questions);
    if (names.length === 0) c.add("questions", "is empty; expected at least one question");
    for (const name of names) question(c, name, questions[name]);
  }
  for (const key of Object.keys(doc)) {
    if (!["schema", "created_at", "source", "questions"].includes(key)) c.add(key, "unknown field");
  }
  return c.errors;
}

/** Validates a calibration file: { ok: true, file } or { ok: false, errors } with a path and message per problem. */
export function validateCalibrationFile(
  doc: unknown,
): { ok: true; file: CalibrationFile } | { ok: false; errors: FileError[] } {
  const errors = calibrationFileErrors(doc);
  return errors.length === 0 ? { ok: true, file: doc as CalibrationFile } : { ok: false, errors };
}

/** Parses (JSON text) and validates a calibration file, throwing CalibrationFileError listing every problem. */
export function parseCalibrationFile(input: string | unknown): CalibrationFile {
  let doc: unknown = input;
  if (typeof input === "string") {
    try {
      doc = JSON.parse(input);
    } catch (err) {
      throw new CalibrationFileError([{ path: "(root)", message: `not JSON: ${(err as Error).message}` }]);
    }
  }
  const r = validateCalibrationFile(doc);
  if (!r.ok) throw new CalibrationFileError(r.errors);
  return r.file;
}
