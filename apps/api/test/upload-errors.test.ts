// Bad uploads answer 400 with the line (never 500), and store nothing: nesting past the depth limit, bytes
// that are not UTF-8, in the JSON body and in multipart; and the upload thread's edges (a name taken during an
// upload, an app closed during one).
import { describe, expect, it } from "vitest";
import { UPLOAD_MAX_DEPTH } from "../src/catalog/upload-limits.js";
import { syntheticTask } from "./fixtures.js";
import { listeningBench, type TestBench, testBench } from "./helpers.js";
import { errorOf, jsonUpload, multipartBody, type RawAnswer, send } from "./upload-http.js";

let bench: TestBench;
let base: string;

listeningBench({}, (b, url) => {
  bench = b;
  base = url;
});

const ok = (id: string) => `{"id":"${id}","state":"fine","labels":{"team":"billing"}}`;

function postJson(body: Buffer): Promise<RawAnswer> {
  return send(base, {
    path: "/api/datasets",
    headers: { "content-type": "application/json", "content-length": String(body.length) },
    body,
  });
}

function postForm(fields: Parameters<typeof multipartBody>[0]): Promise<RawAnswer> {
  const form = multipartBody(fields);
  return send(base, {
    path: "/api/datasets",
    headers: { "content-type": form.contentType },
    body: form.body,
  });
}

async function expectNothingStored(name: string): Promise<void> {
  expect(await bench.storage.getUpload(name)).toBeUndefined();
  expect((await bench.app.inject({ method: "GET", url: `/api/datasets/${name}` })).statusCode).toBe(404);
}

describe("nesting", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}"x"${"]".repeat(levels)}`;
  const deepLine = (levels: number) => `{"id":"deep","state":${deep(levels)},"labels":{"team":"billing"}}`;

  it("the depth limit is 64 levels", () => {
    expect(UPLOAD_MAX_DEPTH).toBe(64);
  });

  it("a state nested 200,000 deep is a 400 with its line and column, not a 500", async () => {
    const content = [ok("a"), ok("b"), deepLine(200_000), ok("c")].join("\n");
    for (const answer of [
      await postJson(jsonUpload("deep-json", content)),
      await postForm([
        { name: "task", value: JSON.stringify(syntheticTask("deep-form")) },
        { name: "file", value: Buffer.from(content), filename: "deep.jsonl" },
      ]),
    ]) {
      expect(answer.status, answer.body.slice(0, 300)).toBe(400);
      const e = errorOf(answer);
      expect(e.code).toBe("invalid_dataset");
      const column = '{"id":"deep","state":'.length + UPLOAD_MAX_DEPTH; // the bracket opening level 65
      expect(e.details).toEqual([expect.objectContaining({ code: "too-deep", line: 3, column: column })]);
      expect(e.message).toContain("line 3");
      expect(e.message).toContain("more than 64 levels deep");
    }
    await expectNothingStored("deep-json");
    await expectNothingStored("deep-form");
  });

  it("64 levels are accepted (the example object is level 1)", async () => {
    const answer = await postJson(jsonUpload("deep-64", deepLine(UPLOAD_MAX_DEPTH - 1)));
    expect(answer.status, answer.body.slice(0, 300)).toBe(201);
    expect((await postJson(jsonUpload("deep-65", deepLine(UPLOAD_MAX_DEPTH)))).status).toBe(400);
  });

  it("a task nested 200,000 deep is a 400 naming the limit", async () => {
    const task = `{"name":"deep-task","description":"d","provenance":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    const json = await postJson(
      Buffer.from(`{"task":${task},"format":"jsonl","content":${JSON.stringify(ok("a"))}}`),
    );
    expect(json.status, json.body.slice(0, 300)).toBe(400);
    expect(errorOf(json).message).toContain("body.task nests objects and lists more than 64 levels deep");
    const form = await postForm([
      { name: "task", value: task },
      { name: "file", value: Buffer.from(ok("a")), filename: "a.jsonl" },
    ]);
    expect(form.status, form.body.slice(0, 300)).toBe(400);
    expect(errorOf(form).message).toContain("task nests objects and lists more than 64 levels deep");
    await expectNothingStored("deep-task");
  });
});

describe("bytes that are not UTF-8", () => {
  // Line 3 holds "caf" then byte 0xE9 (é in Windows-1252): column 23 of that line.
  const lines = [ok("a"), ok("b"), '{"id":"c","state":"caf\u00e9","labels":{"team":"billing"}}', ok("d")];
  const latin1 = Buffer.from(lines.join("\n"), "latin1");
  const column = '{"id":"c","state":"caf'.length + 1;

  function expectLine3(answer: RawAnswer): void {
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    const e = errorOf(answer);
    expect(e.code).toBe("invalid_dataset");
    expect(e.details).toEqual([expect.objectContaining({ code: "invalid-utf8", line: 3, column })]);
    expect(e.message).toContain(
      `line 3, column ${column}: byte 0xE9 is not UTF-8 (in Windows-1252/Latin-1 it would be "é")`,
    );
  }

  it("in a multipart file: 400 with the line and column", async () => {
    expectLine3(
      await postForm([
        { name: "task", value: JSON.stringify(syntheticTask("latin1-form")) },
        { name: "file", value: latin1, filename: "latin1.jsonl" },
      ]),
    );
    await expectNothingStored("latin1-form");
  });

  it("inside the content of a JSON body: 400 with the line of the file", async () => {
    // The JSON body's bytes around the file: the file's bad byte goes into the body as it is.
    const escaped = Buffer.from(JSON.stringify(lines.join("\n")), "latin1");
    const head = Buffer.from(
      `{"task":${JSON.stringify(syntheticTask("latin1-json"))},"format":"jsonl","content":`,
    );
    expectLine3(await postJson(Buffer.concat([head, escaped, Buffer.from("}")])));
    await expectNothingStored("latin1-json");
  });

  it("in a CSV file: 400 with the line", async () => {
    const csv = Buffer.from("id,state,team\nc1,fine,billing\nc2,caf\u00e9,billing\n", "latin1");
    const answer = await postForm([
      { name: "task", value: JSON.stringify(syntheticTask("latin1-csv")) },
      { name: "file", value: csv, filename: "latin1.csv" },
    ]);
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(errorOf(answer).details).toEqual([expect.objectContaining({ code: "invalid-utf8", line: 3 })]);
  });

  it("in the task: 400 invalid_request (JSON body) or invalid_multipart (form)", async () => {
    const task = Buffer.from(
      JSON.stringify({ ...syntheticTask("latin1-task"), description: "caf\u00e9" }),
      "latin1",
    );
    const json = await postJson(
      Buffer.concat([
        Buffer.from('{"task":'),
        task,
        Buffer.from(`,"format":"jsonl","content":${JSON.stringify(ok("a"))}}`),
      ]),
    );
    expect(json.status).toBe(400);
    expect(errorOf(json)).toMatchObject({ code: "invalid_request" });
    expect(errorOf(json).message).toContain("body.task holds bytes that are not UTF-8");
    const form = await postForm([
      { name: "task", value: task },
      { name: "file", value: Buffer.from(ok("a")), filename: "a.jsonl" },
    ]);
    expect(form.status).toBe(400);
    expect(errorOf(form)).toMatchObject({ code: "invalid_multipart" });
    expect(errorOf(form).message).toContain("UTF-8");
    await expectNothingStored("latin1-task");
  });

  it("valid UTF-8 with non-ASCII text is stored as it is", async () => {
    const content = '{"id":"u","state":"café ☕ 😀 \\ud83d\\ude00","labels":{"team":"billing"}}';
    const answer = await postForm([
      { name: "task", value: JSON.stringify({ ...syntheticTask("utf8-ok"), description: "café" }) },
      { name: "file", value: Buffer.from(content), filename: "ok.jsonl" },
    ]);
    expect(answer.status, answer.body).toBe(201);
    const page = JSON.parse(
      (await bench.app.inject({ method: "GET", url: "/api/datasets/utf8-ok/examples" })).body,
    ) as { examples: { state: string }[] };
    expect(page.examples[0].state).toBe("café ☕ 😀 😀");
  });
});

describe("the JSON body and the form, read on the upload thread", () => {
  it.each([
    ["{", "invalid_json", "the body is not valid JSON"],
    ["[]", "invalid_request", "body must be of type object"],
    ['{"task":{},"format":"jsonl"}', "invalid_request", 'body is missing the required field "content"'],
    ['{"__proto__":{"x":1},"task":{},"format":"jsonl","content":"x"}', "invalid_request", '"__proto__"'],
    ['{"task":{"__proto__":{"x":1}},"format":"jsonl","content":"x"}', "invalid_request", '"__proto__" key'],
  ])("%s -> %s", async (raw, code, message) => {
    const answer = await postJson(Buffer.from(raw));
    expect(answer.status).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code });
    expect(errorOf(answer).message).toContain(message);
  });

  it("an empty JSON body and a body-less POST are 400s", async () => {
    const empty = await send(base, {
      path: "/api/datasets",
      headers: { "content-type": "application/json", "content-length": "0" },
    });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).code).toBe("invalid_json");
    const none = await send(base, { path: "/api/datasets" });
    expect(none.status).toBe(400);
    expect(errorOf(none).message).toContain("multipart/form-data");
  });

  it("multipart: an unknown field, a missing task, a malformed body", async () => {
    const unknown = await postForm([{ name: "colour", value: "red" }]);
    expect(errorOf(unknown)).toMatchObject({ code: "invalid_multipart" });
    expect(errorOf(unknown).message).toContain('unknown form field "colour"');
    const noTask = await postForm([{ name: "file", value: Buffer.from(ok("a")), filename: "a.jsonl" }]);
    expect(errorOf(noTask).message).toContain('no "task" field');
    const broken = await send(base, {
      path: "/api/datasets",
      headers: { "content-type": "multipart/form-data; boundary=zz" },
      body: '--zz\r\nContent-Disposition: form-data; name="task"\r\n\r\n{"a":',
    });
    expect(broken.status).toBe(400);
    expect(errorOf(broken).code).toBe("invalid_multipart");
  });

  it("content given as a plain form field, and the format as a field", async () => {
    const answer = await postForm([
      { name: "task", value: JSON.stringify(syntheticTask("field-form")) },
      { name: "format", value: "jsonl" },
      { name: "content", value: `${ok("a")}\n${ok("b")}\n` },
    ]);
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body)).toMatchObject({ name: "field-form", examples: 2 });
  });
});

describe("the upload thread", () => {
  it("two uploads of one name at once: one is stored, the other is a 409", async () => {
    const content = Array.from({ length: 20_000 }, (_, i) => ok(`r${i}`)).join("\n");
    const answers = await Promise.all([
      postJson(jsonUpload("twice", content)),
      postJson(jsonUpload("twice", content)),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const conflict = answers.find((a) => a.status === 409) as RawAnswer;
    expect(errorOf(conflict)).toMatchObject({ code: "dataset_exists" });
    expect((await bench.storage.getUpload("twice"))?.examples).toBe(20_000);
  });

  it("an app closed during an upload closes at once and stores nothing", async () => {
    const other = await testBench();
    const url = await other.listen();
    const head = Buffer.from(`{"task":${JSON.stringify(syntheticTask("cut"))},"format":"jsonl","content":"`);
    const pending = send(url, {
      path: "/api/datasets",
      headers: { "content-type": "application/json", "content-length": String(50_000_000) },
      body: [head, Buffer.alloc(1_000_000, " ")],
      end: false,
    }).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    await other.app.close();
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(await pending).toBeInstanceOf(Error); // the connection was closed under it
    expect(await other.storage.getUpload("cut")).toBeUndefined();
    await other.close();
  });
});
