import { beforeAll, describe, expect, it } from "vitest";
import type { DecisionServerHandle } from "../src/index.js";
import { post, server } from "./helpers.js";

let handle: DecisionServerHandle;
beforeAll(async () => {
  handle = await server({ checkpoints: false });
});

const q = { type: "noul", instructions: "Is it spam?" };
const base = { model: "lexical", state: "win money now", questions: { q0: q } };

function withQuestion(question: unknown): Record<string, unknown> {
  return { ...base, questions: { q0: question } };
}

function withOptions(options: unknown): Record<string, unknown> {
  return { ...base, options };
}

const many = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`o${i}`, null]));

const cases: [string, unknown, string][] = [
  ["an empty body", "", "request body is empty: send a JSON object with model, state and questions"],
  ["malformed JSON", '{"model": ', "request body is not valid JSON: Unexpected end of JSON input"],
  [
    "a body that is not an object",
    [base],
    "request body must be a JSON object with model, state and questions, got array",
  ],
  [
    "a missing model",
    { state: "x", questions: { q0: q } },
    "model is required: a string naming a model (GET /v1/models lists them)",
  ],
  [
    "a model that is not a string",
    { ...base, model: 7 },
    "model must be a string naming a model (GET /v1/models lists them), got number",
  ],
  [
    "a missing state",
    { model: "lexical", questions: { q0: q } },
    "state is required: the input the questions are about (a string, object or array), got nothing",
  ],
  [
    "a null state",
    { ...base, state: null },
    "state is required: the input the questions are about (a string, object or array), got null",
  ],
  [
    "missing questions",
    { model: "lexical", state: "x" },
    "questions is required: an object mapping question ids to questions",
  ],
  [
    "questions that are not an object",
    { ...base, questions: [q] },
    "questions must be an object mapping question ids to questions, got array",
  ],
  ["empty questions", { ...base, questions: {} }, "questions must not be empty: send at least one question"],
  [
    "a question that is not an object",
    withQuestion("Is it spam?"),
    "question 'q0' must be an object with type, instructions and (for choice and score) criteria, got string",
  ],
  [
    "unknown fields on a question",
    withQuestion({ ...q, options: ["a"], weight: 2 }),
    "question 'q0' has unknown fields: ['options', 'weight']; a question has only type, instructions and criteria",
  ],
  [
    "a missing type",
    withQuestion({ instructions: "Is it spam?" }),
    "question 'q0' has no type; type must be one of 'choice', 'noul', 'score'",
  ],
  [
    "an unknown type",
    withQuestion({ ...q, type: "multi" }),
    "question 'q0' has unknown type 'multi'; type must be one of 'choice', 'noul', 'score'",
  ],
  [
    "a type that is not a string",
    withQuestion({ ...q, type: 5 }),
    "question 'q0' has unknown type 5; type must be one of 'choice', 'noul', 'score'",
  ],
  [
    "missing instructions",
    withQuestion({ type: "noul" }),
    "question 'q0': instructions must be a string (the question to answer), got nothing",
  ],
  [
    "instructions that are not a string",
    withQuestion({ type: "noul", instructions: ["Is it spam?"] }),
    "question 'q0': instructions must be a string (the question to answer), got array",
  ],
  [
    "choice criteria missing",
    withQuestion({ type: "choice", instructions: "Which?" }),
    "question 'q0': choice criteria must be an object of 1 to 255 options (option name -> description or null), got nothing",
  ],
  [
    "choice criteria as a list",
    withQuestion({ type: "choice", instructions: "Which?", criteria: ["a", "b"] }),
    "question 'q0': choice criteria must be an object of 1 to 255 options (option name -> description or null), got array",
  ],
  [
    "choice criteria with no option",
    withQuestion({ type: "choice", instructions: "Which?", criteria: {} }),
    "question 'q0': choice criteria must be an object of 1 to 255 options (option name -> description or null), got 0 options",
  ],
  [
    "choice criteria with 256 options",
    withQuestion({ type: "choice", instructions: "Which?", criteria: many }),
    "question 'q0': choice criteria must be an object of 1 to 255 options (option name -> description or null), got 256 options",
  ],
  [
    "a choice description that is not a string",
    withQuestion({ type: "choice", instructions: "Which?", criteria: { a: "first", b: 2 } }),
    "question 'q0': the description of option 'b' must be a string or null, got number",
  ],
  [
    "noul criteria other than true/false",
    withQuestion({ ...q, criteria: { yes: "spam", no: "ham" } }),
    "question 'q0': noul criteria must be an object with only the keys 'true' and 'false' (what yes and no mean, each a string or null), got keys ['yes', 'no']",
  ],
  [
    "noul criteria that are not an object",
    withQuestion({ ...q, criteria: true }),
    "question 'q0': noul criteria must be an object with only the keys 'true' and 'false' (what yes and no mean, each a string or null), got boolean",
  ],
  [
    "score criteria that are not a list",
    withQuestion({ type: "score", instructions: "How?", criteria: { low: null } }),
    "question 'q0': score criteria must be a list of 1 to 255 levels (strings, lowest first), got object",
  ],
  [
    "score criteria with no level",
    withQuestion({ type: "score", instructions: "How?", criteria: [] }),
    "question 'q0': score criteria must be a list of 1 to 255 levels (strings, lowest first), got 0 levels",
  ],
  [
    "a score level that is not a string",
    withQuestion({ type: "score", instructions: "How?", criteria: ["low", 2] }),
    "question 'q0': score level 1 must be a string, got number",
  ],
  [
    "options that are not an object",
    withOptions(["think"]),
    "options must be an object of server options (think, max_think, nothink_threshold, return_reasoning), got array",
  ],
  ["unknown options", withOptions({ max_thinking: 5, think: true }), "unknown options: ['max_thinking']"],
  ["a think that is not a boolean", withOptions({ think: "yes" }), "think must be a boolean"],
  ["a negative max_think", withOptions({ max_think: -1 }), "max_think must be a non-negative integer"],
  ["a fractional max_think", withOptions({ max_think: 1.5 }), "max_think must be a non-negative integer"],
  [
    "a nothink_threshold above 1",
    withOptions({ nothink_threshold: 1.2 }),
    "nothink_threshold must be null or a number between 0 and 1",
  ],
  [
    "a return_reasoning that is not a boolean",
    withOptions({ return_reasoning: 1 }),
    "return_reasoning must be a boolean",
  ],
];

describe("POST /v1/decision validation", () => {
  it.each(cases)("answers %s with 422 and its message", async (_name, body, detail) => {
    const r = await post(handle, body);
    expect(r.status).toBe(422);
    expect(r.json).toEqual({ detail });
  });

  it("answers an unknown model with 404 naming the models it has", async () => {
    const r = await post(handle, { ...base, model: "gpt-9" });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ detail: "model 'gpt-9' not found; available models: 'lexical'" });
  });

  it("accepts every valid server option and ignores unknown top-level fields", async () => {
    const r = await post(handle, {
      ...base,
      user: "someone",
      provider: { order: ["x"] },
      options: { think: false, max_think: 0, nothink_threshold: null, return_reasoning: false },
    });
    expect(r.status).toBe(200);
    const r2 = await post(handle, { ...base, options: { nothink_threshold: 0.9, max_think: 768 } });
    expect(r2.status).toBe(200);
  });

  it("accepts noul criteria with the keys true and false and reads them", async () => {
    const r = await post(
      handle,
      withQuestion({ ...q, criteria: { true: "offers money to win", false: "a personal note" } }),
    );
    expect(r.status).toBe(200);
    const noul = (r.json as { answers: { q0: { noul: number } } }).answers.q0.noul;
    expect(noul).toBeGreaterThan(0.5);
  });
});
