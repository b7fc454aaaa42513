/** Validation of a POST /v1/decision body: the first problem found becomes a 422 `{"detail": ...}`. */

import { invalid } from "../http/errors.js";
import { isObject, jsonType, pyList } from "./describe.js";
import type { DecisionRequest, OptionSpec, Question, ServerOptions } from "./types.js";

/** Most options a choice question or levels a score question may have. */
const MAX_OPTIONS = 255;

const SERVER_OPTIONS = ["think", "max_think", "nothink_threshold", "return_reasoning"];

/** Parses the raw body text; malformed JSON is a 422 that quotes the parser. */
export function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (text.trim() === "") {
      throw invalid("request body is empty: send a JSON object with model, state and questions");
    }
    throw invalid(`request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Validates a parsed body into a request, or throws a 422 HttpError naming the first problem. */
export function validateRequest(body: unknown): DecisionRequest {
  if (!isObject(body)) {
    throw invalid(
      `request body must be a JSON object with model, state and questions, got ${jsonType(body)}`,
    );
  }
  if (!("model" in body)) {
    throw invalid("model is required: a string naming a model (GET /v1/models lists them)");
  }
  if (typeof body.model !== "string") {
    throw invalid(
      `model must be a string naming a model (GET /v1/models lists them), got ${jsonType(body.model)}`,
    );
  }
  if (!("state" in body) || body.state === null) {
    throw invalid(
      `state is required: the input the questions are about (a string, object or array), got ${
        "state" in body ? "null" : "nothing"
      }`,
    );
  }
  const questions = validateQuestions(body.questions, "questions" in body);
  const options = validateOptions(body.options);
  return { model: body.model, state: body.state, questions, options };
}

function validateQuestions(value: unknown, present: boolean): Question[] {
  if (!present) {
    throw invalid("questions is required: an object mapping question ids to questions");
  }
  if (!isObject(value)) {
    throw invalid(`questions must be an object mapping question ids to questions, got ${jsonType(value)}`);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) {
    throw invalid("questions must not be empty: send at least one question");
  }
  return entries.map(([id, q]) => validateQuestion(id, q));
}

function validateQuestion(id: string, q: unknown): Question {
  if (!isObject(q)) {
    throw invalid(
      `question '${id}' must be an object with type, instructions and (for choice and score) criteria, got ${jsonType(q)}`,
    );
  }
  const unknown: string[] = [];
  for (const k in q) {
    if (k !== "type" && k !== "instructions" && k !== "criteria") unknown.push(k);
  }
  if (unknown.length > 0) {
    throw invalid(
      `question '${id}' has unknown fields: ${pyList(unknown)}; a question has only type, instructions and criteria`,
    );
  }
  const type = q.type;
  if (type !== "choice" && type !== "noul" && type !== "score") {
    const shown = typeof type === "string" ? `'${type}'` : JSON.stringify(type);
    const got = type === undefined ? "has no type" : `has unknown type ${shown}`;
    throw invalid(`question '${id}' ${got}; type must be one of 'choice', 'noul', 'score'`);
  }
  if (typeof q.instructions !== "string") {
    throw invalid(
      `question '${id}': instructions must be a string (the question to answer), got ${
        q.instructions === undefined ? "nothing" : jsonType(q.instructions)
      }`,
    );
  }
  const instructions = q.instructions;
  if (type === "choice") return { id, type, instructions, options: choiceCriteria(id, q.criteria) };
  if (type === "score") return { id, type, instructions, options: scoreLevels(id, q.criteria) };
  if (!("criteria" in q)) return { id, type, instructions, options: [] };
  return { id, type, instructions, options: [], ...noulCriteria(id, q.criteria) };
}

function choiceCriteria(id: string, criteria: unknown): OptionSpec[] {
  const entries = isObject(criteria) ? Object.entries(criteria) : [];
  const size = entries.length;
  if (!isObject(criteria) || size < 1 || size > MAX_OPTIONS) {
    const got = isObject(criteria) ? `${size} options` : jsonType(criteria === undefined ? null : criteria);
    throw invalid(
      `question '${id}': choice criteria must be an object of 1 to ${MAX_OPTIONS} options (option name -> description or null), got ${
        criteria === undefined ? "nothing" : got
      }`,
    );
  }
  const options: OptionSpec[] = new Array(size);
  for (let i = 0; i < size; i++) {
    const [name, description] = entries[i];
    if (description !== null && typeof description !== "string") {
      throw invalid(
        `question '${id}': the description of option '${name}' must be a string or null, got ${jsonType(description)}`,
      );
    }
    options[i] = { name, description };
  }
  return options;
}

function scoreLevels(id: string, criteria: unknown): OptionSpec[] {
  if (!Array.isArray(criteria) || criteria.length < 1 || criteria.length > MAX_OPTIONS) {
    const got = Array.isArray(criteria)
      ? `${criteria.length} levels`
      : criteria === undefined
        ? "nothing"
        : jsonType(criteria);
    throw invalid(
      `question '${id}': score criteria must be a list of 1 to ${MAX_OPTIONS} levels (strings, lowest first), got ${got}`,
    );
  }
  return criteria.map((level, i) => {
    if (typeof level !== "string") {
      throw invalid(`question '${id}': score level ${i} must be a string, got ${jsonType(level)}`);
    }
    return { name: level, description: null };
  });
}

function noulCriteria(id: string, c: unknown): { yes?: string | null; no?: string | null } {
  const keys = isObject(c) ? Object.keys(c) : [];
  const ok =
    isObject(c) &&
    keys.length > 0 &&
    keys.every((k) => (k === "true" || k === "false") && (c[k] === null || typeof c[k] === "string"));
  if (!ok) {
    const got = isObject(c) ? `keys ${pyList(keys)}` : jsonType(c);
    throw invalid(
      `question '${id}': noul criteria must be an object with only the keys 'true' and 'false' (what yes and no mean, each a string or null), got ${got}`,
    );
  }
  const out: { yes?: string | null; no?: string | null } = {};
  if ("true" in c) out.yes = c.true as string | null;
  if ("false" in c) out.no = c.false as string | null;
  return out;
}

function validateOptions(value: unknown): ServerOptions {
  const options: ServerOptions = {
    think: true,
    maxThink: null,
    nothinkThreshold: null,
    returnReasoning: false,
  };
  if (value === undefined) return options;
  if (!isObject(value)) {
    throw invalid(
      `options must be an object of server options (think, max_think, nothink_threshold, return_reasoning), got ${jsonType(value)}`,
    );
  }
  const unknown = Object.keys(value).filter((k) => !SERVER_OPTIONS.includes(k));
  if (unknown.length > 0) throw invalid(`unknown options: ${pyList(unknown)}`);
  if ("think" in value) {
    if (typeof value.think !== "boolean") throw invalid("think must be a boolean");
    options.think = value.think;
  }
  if ("max_think" in value) {
    const m = value.max_think;
    if (typeof m !== "number" || !Number.isInteger(m) || m < 0) {
      throw invalid("max_think must be a non-negative integer");
    }
    options.maxThink = m;
  }
  if ("nothink_threshold" in value) {
    const t = value.nothink_threshold;
    if (t !== null && (typeof t !== "number" || !(t >= 0 && t <= 1))) {
      throw invalid("nothink_threshold must be null or a number between 0 and 1");
    }
    options.nothinkThreshold = t;
  }
  if ("return_reasoning" in value) {
    if (typeof value.return_reasoning !== "boolean") throw invalid("return_reasoning must be a boolean");
    options.returnReasoning = value.return_reasoning;
  }
  return options;
}
