/** The fault plan: which POST /v1/decision requests get which fault, and its validation. */

/** One fault the server can inject. */
export type Fault =
  /** Answer with this status; default body `{"detail": "<reason phrase>"}`. */
  | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
  /** A gateway error: `{"error":{"message":"Provider returned error","code":status,"metadata":{"raw":raw,"provider_name":provider}}}`. */
  | { kind: "gateway"; status: number; raw: string; provider?: string }
  /** Wait, then answer normally. */
  | { kind: "delay"; ms: number }
  /** Destroy the socket without a reply. */
  | { kind: "reset" }
  /** Status 200 with the full content-length header, half the body, then close. */
  | { kind: "truncate" }
  /** The first answer's first probability (or noul) written as a bare NaN / Infinity token. */
  | { kind: "nan" }
  | { kind: "infinity" }
  /** That probability set to `value` (default 1.7). */
  | { kind: "out-of-range"; value?: number }
  /** The first question's answer removed from "answers". */
  | { kind: "missing-answer" }
  /** The first answer's first probability (or noul field) removed. */
  | { kind: "missing-probability" }
  /** That probability written as a string / a boolean. */
  | { kind: "string-probability" }
  | { kind: "boolean-probability" };

/** When a fault applies: `on` lists 1-based request numbers; `rate` is a probability per request. */
export interface FaultRule {
  on?: number[];
  rate?: number;
  fault: Fault;
}

/** A fault plan: rules tried in order (the first that applies wins); `seed` seeds the `rate` draws. */
export interface FaultPlan {
  seed?: number;
  rules: FaultRule[];
}

/** Every fault kind. */
export const FAULT_KINDS = [
  "status",
  "gateway",
  "delay",
  "reset",
  "truncate",
  "nan",
  "infinity",
  "out-of-range",
  "missing-answer",
  "missing-probability",
  "string-probability",
  "boolean-probability",
] as const;

/** A fault plan that does not follow the shape; the message names the path and what is expected. */
export class FaultPlanError extends Error {
  constructor(message: string) {
    super(`invalid fault plan: ${message}`);
    this.name = "FaultPlanError";
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isStatus(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 100 && v <= 599;
}

function checkFault(f: unknown, at: string): Fault {
  if (!isRecord(f)) throw new FaultPlanError(`${at} must be an object with a "kind"`);
  const kind = f.kind;
  if (typeof kind !== "string" || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw new FaultPlanError(
      `${at}.kind must be one of ${FAULT_KINDS.join(", ")}; got ${JSON.stringify(kind)}`,
    );
  }
  if ((kind === "status" || kind === "gateway") && !isStatus(f.status)) {
    throw new FaultPlanError(`${at}.status must be an HTTP status (an integer from 100 to 599)`);
  }
  if (kind === "status" && f.headers !== undefined) {
    const ok = isRecord(f.headers) && Object.values(f.headers).every((v) => typeof v === "string");
    if (!ok) throw new FaultPlanError(`${at}.headers must be an object of header name -> string value`);
  }
  if (kind === "gateway") {
    if (typeof f.raw !== "string")
      throw new FaultPlanError(`${at}.raw must be a string (the upstream cause)`);
    if (f.provider !== undefined && typeof f.provider !== "string") {
      throw new FaultPlanError(`${at}.provider must be a string when given`);
    }
  }
  if (kind === "delay" && !(typeof f.ms === "number" && Number.isFinite(f.ms) && f.ms >= 0)) {
    throw new FaultPlanError(`${at}.ms must be a non-negative number of milliseconds`);
  }
  if (
    kind === "out-of-range" &&
    f.value !== undefined &&
    !(typeof f.value === "number" && Number.isFinite(f.value))
  ) {
    throw new FaultPlanError(`${at}.value must be a finite number when given (default 1.7)`);
  }
  return f as Fault;
}

/** Checks a fault plan (for instance parsed from a --faults file) and returns it typed. */
export function validateFaultPlan(plan: unknown): FaultPlan {
  if (!isRecord(plan) || !Array.isArray(plan.rules)) {
    throw new FaultPlanError(
      'expected an object {"seed"?: number, "rules": [{"on"?: [1, 2], "rate"?: 0.5, "fault": {...}}]}',
    );
  }
  if (plan.seed !== undefined && !(typeof plan.seed === "number" && Number.isInteger(plan.seed))) {
    throw new FaultPlanError("seed must be an integer when given");
  }
  const rules = plan.rules.map((rule, i): FaultRule => {
    const at = `rules[${i}]`;
    if (!isRecord(rule)) throw new FaultPlanError(`${at} must be an object with "fault" and "on" or "rate"`);
    const { on, rate } = rule;
    if (
      on !== undefined &&
      !(Array.isArray(on) && on.every((n) => Number.isInteger(n) && (n as number) >= 1))
    ) {
      throw new FaultPlanError(`${at}.on must be a list of request numbers (integers from 1)`);
    }
    if (rate !== undefined && !(typeof rate === "number" && rate >= 0 && rate <= 1)) {
      throw new FaultPlanError(`${at}.rate must be a number between 0 and 1`);
    }
    return { ...rule, fault: checkFault(rule.fault, `${at}.fault`) } as FaultRule;
  });
  return { ...(plan.seed !== undefined ? { seed: plan.seed as number } : {}), rules };
}

/** Parses and checks a fault plan file's text. */
export function parseFaultPlan(text: string): FaultPlan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FaultPlanError(`not valid JSON: ${(error as Error).message}`);
  }
  return validateFaultPlan(value);
}
