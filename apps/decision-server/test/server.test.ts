import { beforeAll, describe, expect, it } from "vitest";
import type { DecisionServerHandle } from "../src/index.js";
import { get, post, sampleRequest, server, withoutLatency } from "./helpers.js";

let latest: DecisionServerHandle;
let older: DecisionServerHandle;
let keyed: DecisionServerHandle;
let small: DecisionServerHandle;

beforeAll(async () => {
  latest = await server();
  older = await server({ alias: "bayes-1" });
  keyed = await server({ apiKey: "s3cret-key" });
  small = await server({ checkpoints: false, bodyLimit: 2048 });
});

/** A penguin as the penguins dataset states it, and the scorer's question for its species item. */
const penguin = {
  Island: "Biscoe",
  "Beak Length (mm)": 46.1,
  "Beak Depth (mm)": 13.2,
  "Flipper Length (mm)": 211,
  Sex: "FEMALE",
};
/** A bird between Adelie and Chinstrap, where no model is sure. */
const ambiguous = {
  Island: "Dream",
  "Beak Length (mm)": 44.5,
  "Beak Depth (mm)": 18.3,
  "Flipper Length (mm)": 193,
  Sex: "MALE",
};
function speciesRequest(
  model: string,
  returnReasoning = false,
  state: unknown = penguin,
): Record<string, unknown> {
  return {
    model,
    state,
    ...(returnReasoning ? { options: { return_reasoning: true } } : {}),
    questions: {
      q0: {
        type: "choice",
        instructions: "Which penguin species is this bird?",
        criteria: { Adelie: null, Chinstrap: null, Gentoo: null },
      },
    },
  };
}

type Reply = {
  model: string;
  answers: Record<string, Record<string, unknown>>;
  usage: Record<string, number>;
  latency_ms: number;
  reasoning?: Record<string, { thought: boolean; closed: boolean; tokens: number; text: string }>;
};

describe("GET /health and GET /v1/models", () => {
  it("reports health and the model names without a key", async () => {
    const r = await get(keyed, "/health");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ status: "ok", models: ["lexical", "bayes-1", "bayes-2", "workbench-latest"] });
  });

  it("lists names, descriptions, checkpoints and what the alias resolves to", async () => {
    const listing = (await get(latest, "/v1/models")).json as {
      models: { name: string; description: string; alias_of?: string; checkpoints?: string[] }[];
      aliases: Record<string, string>;
    };
    expect(listing.models.map((m) => m.name)).toEqual(["lexical", "bayes-1", "bayes-2", "workbench-latest"]);
    for (const m of listing.models) expect(m.description.length).toBeGreaterThan(10);
    expect(listing.aliases).toEqual({ "workbench-latest": "bayes-2" });
    expect(listing.models[3]).toMatchObject({ alias_of: "bayes-2" });
    expect(listing.models[2].checkpoints).toContain("penguins/species");
    expect(listing.models[2].checkpoints).toContain("spam-assassin/properties['link']");
    const olderListing = (await get(older, "/v1/models")).json as { aliases: Record<string, string> };
    expect(olderListing.aliases).toEqual({ "workbench-latest": "bayes-1" });
  });
});

describe("errors outside validation", () => {
  it("answers unknown paths and methods with 404 not found", async () => {
    for (const path of ["/", "/v1/decisions", "/v1/decision"]) {
      const r = await get(latest, path);
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ detail: "not found" });
    }
  });

  it("answers a body over the limit with 413 and a detail", async () => {
    const r = await post(small, { ...sampleRequest(), state: "word ".repeat(1000) });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({
      detail:
        "request body is larger than the limit of 2048 bytes: send fewer or shorter states and questions",
    });
    expect((await post(small, sampleRequest())).status).toBe(200);
  });

  it("refuses to start with an alias to an unknown version", async () => {
    await expect(server({ alias: "bayes-9" })).rejects.toThrow(
      "workbench-latest must resolve to one of 'lexical', 'bayes-1', 'bayes-2'; got 'bayes-9'",
    );
  });
});

describe("the API key", () => {
  it("answers 401 without the header, 401 with a wrong key, 200 with the right one", async () => {
    const none = await post(keyed, sampleRequest());
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ detail: "missing API key: send the header 'Authorization: Bearer <key>'" });
    const wrong = await post(keyed, sampleRequest(), { authorization: "Bearer s3cret-kez" });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain("s3cret");
    const right = await post(keyed, sampleRequest(), { authorization: "Bearer s3cret-key" });
    expect(right.status).toBe(200);
  });

  it("guards GET /v1/models too", async () => {
    expect((await get(keyed, "/v1/models")).status).toBe(401);
    expect((await get(keyed, "/v1/models", { authorization: "Bearer s3cret-key" })).status).toBe(200);
  });
});

describe("replies", () => {
  it("answers choice, noul and score in the wire format", async () => {
    const r = await post(latest, sampleRequest());
    expect(r.status).toBe(200);
    const body = r.json as Reply;
    expect(Object.keys(body)).toEqual(["model", "answers", "usage", "latency_ms"]);
    expect(body.model).toBe("lexical");
    expect(Object.keys(body.answers)).toEqual(["q0", "q1", "q2__0", "q2__1", "q2__ns", "q3"]);
    const choice = body.answers.q0;
    expect(Object.keys(choice)).toEqual(["type", "choice", "confidence", "probabilities"]);
    const probs = choice.probabilities as Record<string, number>;
    expect(Object.keys(probs)).toEqual(["billing", "shipping", "not stated"]);
    const sum = Object.values(probs).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 3);
    expect(choice.choice).toBe("billing");
    expect(choice.confidence).toBe(Math.max(...Object.values(probs)));
    expect(Object.keys(body.answers.q1)).toEqual(["type", "noul"]);
    expect(body.answers.q2__0.noul as number).toBeGreaterThan(body.answers.q2__1.noul as number);
    const score = body.answers.q3;
    expect(Object.keys(score)).toEqual(["type", "score", "legend", "probabilities", "confidence"]);
    expect(Object.keys(score.probabilities as object)).toEqual(["0", "1", "2"]);
    expect(score.legend).toEqual({ 0: "calm", 1: "annoyed", 2: "furious" });
    expect(Object.keys(score.legend as object)).toEqual(["0", "1", "2"]);
    const ps = Object.values(score.probabilities as Record<string, number>);
    // score is the expected level, confidence 1 - sum p_i |i - mode| / (k - 1) (rounded to 4 decimals).
    const expected = ps.reduce((sum, p, i) => sum + i * p, 0);
    expect(score.score as number).toBeCloseTo(expected, 3);
    const mode = ps.indexOf(Math.max(...ps));
    const spread = ps.reduce((sum, p, i) => sum + p * Math.abs(i - mode), 0);
    expect(score.confidence as number).toBeCloseTo(1 - spread / 2, 3);
    expect(body.usage.reasoning_tokens).toBe(0);
    expect(body.usage.input_tokens).toBeGreaterThan(20);
    expect(body.usage.output_tokens).toBeGreaterThanOrEqual(6);
    expect(typeof body.latency_ms).toBe("number");
  });

  it("keeps question ids and option names such as __proto__ as ordinary keys", async () => {
    const raw =
      '{"model":"lexical","state":"the constructor","options":{"return_reasoning":true},"questions":{"__proto__":' +
      '{"type":"choice","instructions":"Which?","criteria":{"__proto__":"a prototype","constructor":null}}}}';
    const r = await post(latest, raw);
    expect(r.status).toBe(200);
    expect(r.text).toContain('"answers":{"__proto__":{"type":"choice","choice":"constructor"');
    expect(r.text).toContain('"probabilities":{"__proto__":');
    expect(r.text).toContain('"reasoning":{"__proto__":{"thought":false');
  });

  it("counts more input tokens for a longer state", async () => {
    const short = (await post(latest, sampleRequest())).json as Reply;
    const long = (await post(latest, { ...sampleRequest(), state: "a long story, ".repeat(50) }))
      .json as Reply;
    expect(long.usage.input_tokens).toBeGreaterThan(short.usage.input_tokens + 100);
  });

  it("gives reasoning per question id only when return_reasoning is set", async () => {
    const plain = (await post(latest, speciesRequest("bayes-2"))).json as Reply;
    expect(plain.reasoning).toBeUndefined();
    const body = (await post(latest, speciesRequest("bayes-2", true))).json as Reply;
    const reasoning = body.reasoning?.q0;
    expect(reasoning).toMatchObject({ thought: false, closed: true, tokens: 0 });
    expect(reasoning?.text).toMatch(/^bayes-2 checkpoint penguins\/species: 'Gentoo' over '\w+'/);
    expect(reasoning?.text).toMatch(/(Beak|Flipper) (Length|Depth) \(mm\)=/);
    const lexical = (await post(latest, { ...sampleRequest(), options: { return_reasoning: true } }))
      .json as Reply;
    expect(Object.keys(lexical.reasoning ?? {})).toEqual(["q0", "q1", "q2__0", "q2__1", "q2__ns", "q3"]);
    expect(lexical.reasoning?.q0.text).toContain("'billing' matched charged");
  });

  it("is deterministic: the same request gets the same bytes apart from latency_ms", async () => {
    for (const body of [
      sampleRequest(),
      speciesRequest("workbench-latest", true),
      sampleRequest("bayes-1"),
    ]) {
      const a = await post(latest, body);
      const b = await post(latest, body);
      const c = await post(older, body);
      expect(withoutLatency(a.text)).toBe(withoutLatency(b.text));
      if ((body.model as string) !== "workbench-latest")
        expect(withoutLatency(c.text)).toBe(withoutLatency(a.text));
    }
  });
});

describe("checkpoints", () => {
  it("answers a matched question from the checkpoint and another from lexical", async () => {
    const matched = (await post(latest, speciesRequest("bayes-2", true))).json as Reply;
    const probs = matched.answers.q0.probabilities as Record<string, number>;
    expect(probs.Gentoo).toBeGreaterThan(0.8);
    const other = speciesRequest("bayes-2", true);
    (other.questions as Record<string, { instructions: string }>).q0.instructions = "Which bird is it?";
    const fallback = (await post(latest, other)).json as Reply;
    expect(fallback.reasoning?.q0.text).toMatch(/^no bayes-2 checkpoint matches this question; lexical: /);
    const lexical = (await post(latest, { ...other, model: "lexical" })).json as Reply;
    expect(fallback.answers).toEqual(lexical.answers);
  });

  it("swaps weights with the alias: the reply names the version and the probabilities move", async () => {
    const a = (await post(latest, speciesRequest("workbench-latest", false, ambiguous))).json as Reply;
    const b = (await post(older, speciesRequest("workbench-latest", false, ambiguous))).json as Reply;
    expect(a.model).toBe("bayes-2");
    expect(b.model).toBe("bayes-1");
    expect(a.answers.q0.probabilities).not.toEqual(b.answers.q0.probabilities);
    const direct = (await post(latest, speciesRequest("bayes-1", false, ambiguous))).json as Reply;
    expect(direct.model).toBe("bayes-1");
    expect(direct.answers).toEqual(b.answers);
  });

  it("matches a choice question whatever the order of its options", async () => {
    const ordered = (await post(latest, speciesRequest("bayes-2"))).json as Reply;
    const shuffled = speciesRequest("bayes-2");
    (shuffled.questions as Record<string, { criteria: unknown }>).q0.criteria = {
      Gentoo: null,
      Adelie: null,
      Chinstrap: null,
    };
    const reply = (await post(latest, shuffled)).json as Reply;
    expect(reply.answers.q0.probabilities).toEqual(ordered.answers.q0.probabilities);
    expect(Object.keys(reply.answers.q0.probabilities as object)).toEqual(["Gentoo", "Adelie", "Chinstrap"]);
  });

  it("reads a missing field as evidence for `not stated`", async () => {
    const sexQuestion = {
      type: "choice",
      instructions: "What sex was recorded for this penguin?",
      criteria: { female: null, male: null, "not stated": "The input does not state it: ..." },
    };
    const { Sex: _sex, ...unsexed } = penguin;
    const withSex = (await post(latest, { model: "bayes-2", state: penguin, questions: { q0: sexQuestion } }))
      .json as Reply;
    const without = (await post(latest, { model: "bayes-2", state: unsexed, questions: { q0: sexQuestion } }))
      .json as Reply;
    expect(withSex.answers.q0.choice).toBe("female");
    expect(without.answers.q0.choice).toBe("not stated");
  });
});
