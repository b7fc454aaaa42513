/**
 * API errors in people's words: a sentence about what they did, each problem rewritten with the form's own labels
 * ("body.timeout must be <= 3600" -> "Timeout must be at most 3600 seconds"), whether trying again can help, and
 * the API's own message, code, status and details kept apart for a collapsed "technical details".
 */

import { ApiError } from "../api/client";

/** How a form names one of the API's fields: its label, and the unit its numbers are in. */
export interface FieldLabel {
  label: string;
  /** e.g. "seconds": "must be <= 3600" reads "must be at most 3600 seconds". */
  unit?: string;
}

/** The API's field paths (`timeout`, `options.max_think`) and how the form names them. */
export type FieldLabels = Record<string, FieldLabel | string>;

/** A message the API words in its own terms, tied to a field and rewritten: `rewrite` gets the pattern's match. */
export interface ProblemRule {
  pattern: RegExp;
  field?: string;
  rewrite: (m: RegExpMatchArray) => string;
}

/** One problem of a refused request: the field it concerns (an API path such as `timeout`), in words. */
export interface Problem {
  field?: string;
  text: string;
}

/** What the person is shown of an error; `technical` goes inside a collapsed "details". */
export interface PersonError {
  /** A short heading when the page gives none, e.g. "Not found". */
  title: string;
  /** What happened, about their action, without API paths, codes or HTTP words. */
  sentence: string;
  /** Every problem, rewritten (listed when there are two or more; one is the sentence itself). */
  problems: string[];
  /** Where to go next, e.g. the Runs page after a run that does not exist. */
  link?: { to: string; label: string };
  /** Whether trying the same again can help: network failures, 5xx and 429, not 400/404/409/422. */
  retry: boolean;
  /** Whether the workbench asks for a token (401). */
  unauthorized: boolean;
  /** The API's own words, for the collapsed details; absent for an error that did not come from the API. */
  technical?: { message: string; code: string; status: number; request?: string; details: string[] };
}

/** An API hint for programs: a route, an HTTP method with a path, the docs. */
const API_HINT = /\/api\b|\b(GET|POST|PUT|PATCH|DELETE) \/|\/docs\b|\bHTTP\b/;

/** Drops the clauses and parentheses of a message that speak to programs ("list the runs with GET /api/runs"). */
export function withoutApiHints(message: string): string {
  return message
    .replace(/\s*\([^()]*\)/g, (p) => (API_HINT.test(p) ? "" : p))
    .split(/;\s+/)
    .filter((clause) => !API_HINT.test(clause))
    .join("; ")
    .trim();
}

/** A clause as a sentence: capital first letter, a full stop at the end. */
export function asSentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const s = t[0].toUpperCase() + t.slice(1);
  return /[.!?…]$/.test(s) ? s : `${s}.`;
}

/** Splits the API's message into its problems: schema errors are joined by "; " and each starts with its place. */
function splitProblems(message: string): string[] {
  return message
    .split(/;\s+(?=(?:body|query|querystring|params|headers)(?:[.[\s]|$))/)
    .map((s) => s.trim())
    .filter(Boolean);
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  integer: "a whole number",
  string: "text",
  boolean: "yes or no",
  array: "a list",
  object: "a group of settings",
  null: "empty",
};

function labelOf(path: string, labels: FieldLabels): FieldLabel {
  const hit = labels[path] ?? labels[path.split(".")[0]];
  if (typeof hit === "string") return { label: hit };
  if (hit) return hit;
  const last = path.split(".").pop() ?? path;
  const words = last
    .replace(/_/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();
  return { label: words[0].toUpperCase() + words.slice(1) };
}

function withUnit(n: string, unit: string | undefined): string {
  if (!unit) return n;
  return `${n} ${Number(n) === 1 && unit.endsWith("s") ? unit.slice(0, -1) : unit}`;
}

/** The rest of a schema error ("must be <= 3600") in words, for a field with `unit`. */
function rewriteRule(rest: string, unit: string | undefined): string {
  let m = /^must be (<=|>=|<|>) (-?[\d.e+]+)$/.exec(rest);
  if (m) {
    const how = { "<=": "at most", ">=": "at least", "<": "less than", ">": "more than" }[m[1]];
    return `must be ${how} ${withUnit(m[2], unit)}`;
  }
  m = /^must be (?:an |of type )?(\w+)$/.exec(rest);
  if (m && TYPE_WORDS[m[1]]) return `must be ${TYPE_WORDS[m[1]]}`;
  m = /^must be of type ([\w,]+)$/.exec(rest);
  if (m)
    return `must be ${m[1]
      .split(",")
      .map((t) => TYPE_WORDS[t] ?? t)
      .join(" or ")}`;
  m = /^must NOT have (more|fewer) than (\d+) (characters|items)$/.exec(rest);
  if (m) {
    const bound = m[1] === "more" ? "at most" : "at least";
    return m[3] === "characters"
      ? `must have ${bound} ${m[2]} characters`
      : `takes ${bound} ${m[2]} ${m[2] === "1" ? "choice" : "choices"}`;
  }
  if (/^must NOT have duplicate items/.test(rest)) return "must not name the same value twice";
  m = /^must be one of (.*)$/.exec(rest);
  if (m) return `must be one of ${m[1].replace(/"([^"]*)"/g, "$1")}`;
  m = /^must be .*\(a number above 0, at most ([\d.e+]+)\), or null for none(?:; got .*)?$/.exec(rest);
  if (m) return `must be a number above 0 and at most ${withUnit(m[1], unit)}, or empty for none`;
  return withoutApiHints(rest.replace(/\bnull\b/g, "empty"));
}

/** One problem of the API's message: its field and its words (the form's labels, no API paths). */
export function rewriteProblem(
  message: string,
  labels: FieldLabels = {},
  rules: ProblemRule[] = [],
): Problem {
  for (const r of rules) {
    const m = message.match(r.pattern);
    if (m) return { field: r.field, text: asSentence(r.rewrite(m)) };
  }
  // "body.timeout must be …", and "body.baseUrl: the host …" (a field named before a colon)
  const m = /^(?:body|query|querystring|params)((?:\.[\w$]+|\[\d+\])*)(:?) (.*)$/s.exec(message);
  if (!m) return { text: asSentence(withoutApiHints(message)) };
  const path = m[1]
    .replace(/\[\d+\]/g, "")
    .replace(/^\./, "")
    .trim();
  const rest = m[3];
  const missing = /^is missing the required field "([^"]+)"/.exec(rest);
  if (missing) {
    const field = path ? `${path}.${missing[1]}` : missing[1];
    return { field, text: `${labelOf(field, labels).label} is required.` };
  }
  const unknown = /^has an unknown field "([^"]+)"/.exec(rest);
  if (unknown)
    return { text: `The workbench does not take a setting named “${unknown[1]}”; it was not saved.` };
  if (!path) return { text: asSentence(withoutApiHints(rest)) };
  const { label, unit } = labelOf(path, labels);
  // the label as the form writes it (e.g. "max_think"), only the full stop added
  const text = `${label}${m[2]} ${rewriteRule(rest, unit)}`;
  return { field: path, text: /[.!?]$/.test(text) ? text : `${text}.` };
}

function detailMessages(details: unknown[]): { field?: string; message: string }[] {
  return details
    .filter(
      (d): d is { field?: unknown; path?: unknown; message: string } =>
        !!d && typeof d === "object" && typeof (d as { message?: unknown }).message === "string",
    )
    .map((d) => ({
      field: typeof d.field === "string" ? d.field : undefined,
      message: d.message,
    }));
}

/**
 * Every problem of a refused request, rewritten: from the details when they carry messages (each with its field),
 * else from the message split at its "; ". A field named by a detail is kept even when the text names none.
 */
function problemsOf(error: unknown, labels: FieldLabels = {}, rules: ProblemRule[] = []): Problem[] {
  if (!(error instanceof ApiError)) return [];
  const details = detailMessages(error.details);
  if (details.length) {
    return details.map((d) => {
      const p = rewriteProblem(d.message, labels, rules);
      return d.field && !p.field ? { ...p, field: d.field } : p;
    });
  }
  return splitProblems(error.message).map((t) => rewriteProblem(t, labels, rules));
}

/** A form's API problems by field (those it has a field for) and the rest. */
export function fieldProblems(
  error: unknown,
  fields: readonly string[],
  labels: FieldLabels = {},
  rules: ProblemRule[] = [],
): { byField: Record<string, string>; rest: string[] } {
  const byField: Record<string, string> = {};
  const rest: string[] = [];
  for (const p of problemsOf(error, labels, rules)) {
    if (p.field && fields.includes(p.field))
      byField[p.field] = byField[p.field] ? `${byField[p.field]} ${p.text}` : p.text;
    else rest.push(p.text);
  }
  return { byField, rest };
}

const RESOURCES: Record<string, { noun: string; page?: { to: string; label: string } }> = {
  run: { noun: "run", page: { to: "/", label: "Go to the Runs page" } },
  runs: { noun: "run", page: { to: "/", label: "Go to the Runs page" } },
  dataset: { noun: "dataset", page: { to: "/datasets", label: "Go to the Datasets page" } },
  datasets: { noun: "dataset", page: { to: "/datasets", label: "Go to the Datasets page" } },
  server: { noun: "server", page: { to: "/servers", label: "Go to the Servers page" } },
  servers: { noun: "server", page: { to: "/servers", label: "Go to the Servers page" } },
  calibration: { noun: "calibration" },
  calibrations: { noun: "calibration" },
};

function notFound(e: ApiError): Pick<PersonError, "sentence" | "link"> {
  const named = /^(\w+) "(.+?)" does not exist/.exec(e.message);
  const own = /^\/(runs|datasets|servers|calibrations)\/([^/?]+)/.exec(e.request?.path ?? "");
  const kind = named?.[1] ?? own?.[1];
  const r = kind ? RESOURCES[kind] : undefined;
  if (!r) {
    return {
      sentence: "This page asked for something the workbench does not have; it may have been deleted.",
      link: RESOURCES.run.page,
    };
  }
  // on the resource's own page "this run"; elsewhere (a form naming a dataset) the name
  const itself =
    own && (!named || decodeURIComponent(own[2]) === named[2]) && RESOURCES[own[1]].noun === r.noun;
  const what = itself || !named ? `This ${r.noun}` : `The ${r.noun} “${named[2]}”`;
  return { sentence: `${what} does not exist; it may have been deleted.`, link: r.page };
}

function technical(e: ApiError): NonNullable<PersonError["technical"]> {
  return {
    message: e.message,
    code: e.code,
    status: e.status,
    request: e.request ? `${e.request.method} /api${e.request.path}` : undefined,
    details: e.details.map((d) => JSON.stringify(d)),
  };
}

/** What a person is shown of an error: a sentence about their action, the problems, whether to try again. */
export function describeError(error: unknown): PersonError {
  if (!(error instanceof ApiError)) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      title: "Something went wrong",
      sentence: asSentence(message),
      problems: [],
      retry: true,
      unauthorized: false,
    };
  }
  const base = { problems: [] as string[], retry: false, unauthorized: false, technical: technical(error) };
  const s = error.status;
  if (s === 0 || error.code === "unreachable")
    return {
      ...base,
      title: "The workbench could not be reached",
      sentence:
        "The workbench did not answer; check that it is still running and your network is up, then try again.",
      retry: true,
    };
  if (s === 401 || error.code === "unauthorized")
    return {
      ...base,
      title: "A token is needed",
      sentence: "This workbench asks for a token: paste the one you were given.",
      unauthorized: true,
    };
  if (s === 403)
    return {
      ...base,
      title: "Not allowed",
      sentence: asSentence(withoutApiHints(error.message)) || "Your token may not do this.",
    };
  if (s === 404) return { ...base, title: "Not found", ...notFound(error) };
  if (s === 413)
    return {
      ...base,
      title: "Too large",
      sentence: "This is larger than the workbench accepts; send something smaller.",
    };
  if (s === 429)
    return {
      ...base,
      title: "The workbench is busy",
      sentence: "The workbench is busy right now; wait a moment, then try again.",
      retry: true,
    };
  if (s >= 500) {
    const own = error.code !== "internal_error" && error.code !== "http_error";
    return {
      ...base,
      title: "The workbench failed",
      sentence: own
        ? asSentence(withoutApiHints(error.message))
        : "The workbench failed while doing this; try again, and if it fails again, look at the workbench's log.",
      retry: true,
    };
  }
  const problems = problemsOf(error)
    .map((p) => p.text)
    .filter(Boolean);
  return {
    ...base,
    title: s === 409 ? "Not possible right now" : "Refused",
    sentence:
      problems.length > 1
        ? `${problems.length} things to fix:`
        : (problems[0] ?? "The workbench refused this; nothing was changed."),
    problems: problems.length > 1 ? problems : [],
  };
}
