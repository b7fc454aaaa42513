import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonl, syntheticExamples, syntheticTask, uploadBody } from "./fixtures.js";
import { body, post, type TestBench, testBench } from "./helpers.js";

let bench: TestBench;

beforeAll(async () => {
  bench = await testBench();
});

afterAll(async () => {
  await bench.close();
});

const error = (res: { body: string }) =>
  body<{ error: { code: string; message: string; details?: Record<string, unknown>[] } }>(res as never).error;

describe("bundled datasets", () => {
  it("lists the four bundled datasets with hashes, split counts and items", async () => {
    const res = await bench.app.inject({ method: "GET", url: "/api/datasets" });
    expect(res.statusCode).toBe(200);
    const list =
      body<
        { name: string; source: string; examples: number; splits: Record<string, number>; hash: string }[]
      >(res);
    expect(list.map((d) => d.name)).toEqual(["spam-assassin", "penguins", "brown-genres", "seattle-weather"]);
    for (const d of list) {
      expect(d.source).toBe("bundled");
      expect(d.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(d.splits.train + d.splits.calibration + d.splits.test).toBe(d.examples);
    }
    const penguins = list.find((d) => d.name === "penguins") as unknown as {
      items: { name: string; options: string[]; notStated: boolean }[];
    };
    expect(penguins.items.find((i) => i.name === "sex")).toMatchObject({ notStated: true });
  });

  it("shows one dataset with its task and label counts per split", async () => {
    const res = await bench.app.inject({ method: "GET", url: "/api/datasets/penguins" });
    expect(res.statusCode).toBe(200);
    const d = body<{
      task: { items: unknown[] };
      examples: number;
      labelCounts: { item: string; split: string; label: string; count: number }[];
    }>(res);
    expect(d.task.items.length).toBe(3);
    const species = d.labelCounts.filter((c) => c.item === "species");
    expect(species.reduce((a, c) => a + c.count, 0)).toBe(d.examples);
    expect(new Set(species.map((c) => c.split))).toEqual(new Set(["train", "calibration", "test"]));
  });

  it("pages examples, filters by split and searches", async () => {
    const page = body<{ total: number; examples: { id: string; split: string }[] }>(
      await bench.app.inject({
        method: "GET",
        url: "/api/datasets/penguins/examples?split=test&offset=2&limit=3",
      }),
    );
    expect(page.examples.length).toBe(3);
    expect(page.examples.every((e) => e.split === "test")).toBe(true);
    const all = body<{ total: number; examples: { id: string }[] }>(
      await bench.app.inject({ method: "GET", url: "/api/datasets/penguins/examples?split=test&limit=5" }),
    );
    expect(all.total).toBe(page.total);
    expect(page.examples[0].id).toBe(all.examples[2].id);
    const found = body<{ total: number; examples: { state: Record<string, unknown> }[] }>(
      await bench.app.inject({ method: "GET", url: "/api/datasets/penguins/examples?q=dream&limit=500" }),
    );
    expect(found.total).toBeGreaterThan(0);
    expect(found.examples.every((e) => JSON.stringify(e.state).toLowerCase().includes("dream"))).toBe(true);
  });

  it.each([
    ["/api/datasets/penguins/examples?limit=0", "querystring.limit must be >= 1"],
    ["/api/datasets/penguins/examples?limit=501", "querystring.limit must be <= 500"],
    ["/api/datasets/penguins/examples?offset=-1", "querystring.offset must be >= 0"],
    ["/api/datasets/penguins/examples?offset=abc", "querystring.offset must be an integer"],
    [
      "/api/datasets/penguins/examples?split=dev",
      'querystring.split must be one of "train", "calibration", "test"',
    ],
    ["/api/datasets/penguins/examples?sort=id", 'querystring has an unknown field "sort"'],
  ])("GET %s is a 400 that says what is wrong", async (url, message) => {
    const res = await bench.app.inject({ method: "GET", url });
    expect(res.statusCode).toBe(400);
    expect(error(res).message).toContain(message);
  });

  it("answers 404 for a dataset that does not exist, naming it", async () => {
    for (const url of ["/api/datasets/nope", "/api/datasets/nope/examples"]) {
      const res = await bench.app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(404);
      expect(error(res).message).toContain('dataset "nope" does not exist');
    }
  });

  it("refuses to delete a bundled dataset", async () => {
    const res = await bench.app.inject({ method: "DELETE", url: "/api/datasets/penguins" });
    expect(res.statusCode).toBe(409);
    expect(error(res).message).toContain("only uploads can be deleted");
  });
});

describe("uploads", () => {
  it("stores a JSONL upload and shows it like a bundled one", async () => {
    const res = await post(bench.app, "/api/datasets", uploadBody(30, "up-jsonl"));
    expect(res.statusCode).toBe(201);
    expect(body(res)).toMatchObject({
      name: "up-jsonl",
      source: "upload",
      examples: 30,
      splits: { train: 10, calibration: 10, test: 10 },
    });
    const list = body<{ name: string }[]>(await bench.app.inject({ method: "GET", url: "/api/datasets" }));
    expect(list.map((d) => d.name)).toContain("up-jsonl");
    const detail = body<{ labelCounts: { item: string; label: string; split: string; count: number }[] }>(
      await bench.app.inject({ method: "GET", url: "/api/datasets/up-jsonl" }),
    );
    const billingTest = detail.labelCounts.find(
      (c) => c.item === "team" && c.label === "billing" && c.split === "test",
    );
    const expected = syntheticExamples(30).filter(
      (e) => e.split === "test" && (e.labels as { team: string }).team === "billing",
    ).length;
    expect(billingTest?.count).toBe(expected);
    const page = body<{ total: number; examples: { id: string }[] }>(
      await bench.app.inject({
        method: "GET",
        url: "/api/datasets/up-jsonl/examples?split=calibration&q=ticket%201&limit=50",
      }),
    );
    expect(page.examples.map((e) => e.id)).toEqual(["t0001", "t0010", "t0013", "t0016", "t0019"]);
    expect(page.total).toBe(5);
  });

  it("stores a CSV upload", async () => {
    const csv = [
      "id,state,team,urgent,topics,split",
      'c1,"My parcel is late, where is it?",shipping,no,delivery,test',
      "c2,Refund my invoice please,billing,yes,refund|delivery,calibration",
      "c3,Password reset fails,account,not stated,,train",
    ].join("\n");
    const res = await post(bench.app, "/api/datasets", {
      task: syntheticTask("up-csv"),
      format: "csv",
      content: csv,
    });
    expect(res.statusCode).toBe(201);
    expect(body(res)).toMatchObject({ examples: 3, splits: { train: 1, calibration: 1, test: 1 } });
    const page = body<{ examples: { id: string; labels: Record<string, unknown> }[] }>(
      await bench.app.inject({ method: "GET", url: "/api/datasets/up-csv/examples" }),
    );
    expect(page.examples[1].labels).toEqual({
      team: "billing",
      urgent: "yes",
      topics: ["refund", "delivery"],
    });
  });

  it("stores a multipart upload (format read from the file name)", async () => {
    const boundary = "----wbtest";
    const parts = [
      `--${boundary}\r\nContent-Disposition: form-data; name="task"\r\n\r\n${JSON.stringify(syntheticTask("up-multi"))}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="t.jsonl"\r\nContent-Type: application/x-ndjson\r\n\r\n${jsonl(syntheticExamples(4))}\r\n`,
      `--${boundary}--\r\n`,
    ].join("");
    const res = await bench.app.inject({
      method: "POST",
      url: "/api/datasets",
      headers: { "content-type": `multipart/form-data; boundary=${boundary}`, "x-workbench": "1" },
      payload: parts,
    });
    expect(res.statusCode).toBe(201);
    expect(body(res)).toMatchObject({ name: "up-multi", examples: 4 });
  });

  it("refuses a multipart upload without a format and with an unknown field", async () => {
    const boundary = "xyz";
    const make = (extra: string, filename: string) =>
      [
        `--${boundary}\r\nContent-Disposition: form-data; name="task"\r\n\r\n${JSON.stringify(syntheticTask("up-mx"))}\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n${jsonl(syntheticExamples(2))}\r\n`,
        extra,
        `--${boundary}--\r\n`,
      ].join("");
    const headers = { "content-type": `multipart/form-data; boundary=${boundary}`, "x-workbench": "1" };
    const noFormat = await bench.app.inject({
      method: "POST",
      url: "/api/datasets",
      headers,
      payload: make("", "data.txt"),
    });
    expect(noFormat.statusCode).toBe(400);
    expect(error(noFormat).message).toContain('add a "format" field');
    const unknown = await bench.app.inject({
      method: "POST",
      url: "/api/datasets",
      headers,
      payload: make(
        `--${boundary}\r\nContent-Disposition: form-data; name="colour"\r\n\r\nred\r\n`,
        "d.jsonl",
      ),
    });
    expect(unknown.statusCode).toBe(400);
    expect(error(unknown).message).toContain('unknown form field "colour"');
  });

  it("lists every validation error with its line and stores nothing", async () => {
    const lines = jsonl(syntheticExamples(5)).split("\n");
    lines[1] = lines[1].replace('"team":"shipping"', '"team":"shiping"');
    lines[3] = "{not json";
    const res = await post(bench.app, "/api/datasets", {
      task: syntheticTask("up-bad"),
      format: "jsonl",
      content: lines.join("\n"),
    });
    expect(res.statusCode).toBe(400);
    const e = error(res);
    expect(e.code).toBe("invalid_dataset");
    expect(e.message).toContain("nothing imported");
    expect(e.details?.map((d) => d.line)).toEqual([2, 4]);
    expect(e.details?.[0]).toMatchObject({ code: "label-not-option", field: "labels.team" });
    expect(String(e.details?.[0].message)).toContain('did you mean "shipping"');
    const list = body<{ name: string }[]>(await bench.app.inject({ method: "GET", url: "/api/datasets" }));
    expect(list.map((d) => d.name)).not.toContain("up-bad");
    expect(await bench.storage.getUpload("up-bad")).toBeUndefined();
  });

  it("lists CSV errors with line and column names", async () => {
    const csv = [
      "id,state,team,urgent,topics",
      "c1,late parcel,shipping,no,delivery",
      "c2,refund,billing,perhaps,refund",
    ].join("\n");
    const res = await post(bench.app, "/api/datasets", {
      task: syntheticTask("up-badcsv"),
      format: "csv",
      content: csv,
    });
    expect(res.statusCode).toBe(400);
    expect(error(res).details?.[0]).toMatchObject({
      line: 3,
      columnName: "urgent",
      code: "label-not-option",
    });
  });

  it.each([
    [{ format: "jsonl", content: "x" }, 'body is missing the required field "task"', "invalid_request"],
    [
      { task: syntheticTask("z"), format: "xml", content: "x" },
      'body.format must be one of "jsonl", "csv"',
      "invalid_request",
    ],
    [{ task: syntheticTask("z"), format: "jsonl", content: "" }, "body.content is empty", "invalid_request"],
    [
      { task: syntheticTask("z"), format: "jsonl", content: 5 },
      "body.content must be of type string",
      "invalid_request",
    ],
    [{ task: { name: "z" }, format: "jsonl", content: "{}" }, "description", "invalid_task"],
    [
      { task: { ...syntheticTask("a b"), name: "a b" }, format: "jsonl", content: "{}" },
      "cannot name a dataset",
      "invalid_request",
    ],
    [
      { task: syntheticTask("penguins"), format: "jsonl", content: "{}" },
      "is a bundled dataset",
      "dataset_exists",
    ],
  ])("refuses %j", async (payload, message, code) => {
    const res = await post(bench.app, "/api/datasets", payload);
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
    expect(error(res).code).toBe(code);
    expect(error(res).message).toContain(message);
  });

  it("refuses a second upload of the same name, then deletes the first", async () => {
    expect((await post(bench.app, "/api/datasets", uploadBody(3, "up-twice"))).statusCode).toBe(201);
    const again = await post(bench.app, "/api/datasets", uploadBody(3, "up-twice"));
    expect(again.statusCode).toBe(409);
    expect(error(again).message).toContain("already uploaded");
    const del = await bench.app.inject({ method: "DELETE", url: "/api/datasets/up-twice" });
    expect(del.statusCode).toBe(204);
    expect((await bench.app.inject({ method: "GET", url: "/api/datasets/up-twice" })).statusCode).toBe(404);
    expect((await bench.app.inject({ method: "DELETE", url: "/api/datasets/up-twice" })).statusCode).toBe(
      404,
    );
  });

  it("refuses a task the scorer could not ask", async () => {
    const task = syntheticTask("up-256");
    task.items = [
      {
        name: "many",
        kind: "choice",
        question: "Which?",
        options: Array.from({ length: 256 }, (_, i) => `o${i}`),
      },
    ] as never;
    const res = await post(bench.app, "/api/datasets", {
      task,
      format: "jsonl",
      content: '{"id":"a","state":"x","labels":{}}',
    });
    expect(res.statusCode).toBe(400);
    expect(error(res).message).toContain("at most 255");
  });

  it("refuses a body over the upload limit with 413", async () => {
    const res = await bench.app.inject({
      method: "POST",
      url: "/api/servers",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ name: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(error(res).code).toBe("body_too_large");
  });
});
