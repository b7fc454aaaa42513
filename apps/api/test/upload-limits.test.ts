// One size limit for uploads (UPLOAD_LIMIT): a Content-Length over it is refused with a readable 413 before any
// of the body is read; a body without a Content-Length is cut off with 413 once it passes it.
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { UPLOAD_LIMIT, UPLOADS_AT_ONCE } from "../src/catalog/upload-limits.js";
import { jsonl, syntheticExamples, syntheticTask } from "./fixtures.js";
import { listeningBench, type TestBench } from "./helpers.js";
import { errorOf, jsonUpload, type RawAnswer, send } from "./upload-http.js";

let bench: TestBench;
let base: string;

listeningBench({}, (b, url) => {
  bench = b;
  base = url;
});

/** Streams `total` bytes of `filler` with chunked encoding (no Content-Length), reading the answer as it comes. */
function chunked(
  contentType: string,
  head: string,
  total: number,
): Promise<{ answer: RawAnswer; sent: number; writeError?: string }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let writeError: string | undefined;
    const req = request(
      new URL("/api/datasets", base),
      { method: "POST", headers: { "content-type": contentType, "x-workbench": "1" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            answer: {
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            },
            sent,
            writeError,
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", (err) => {
      writeError = err.message;
    });
    const filler = Buffer.alloc(1024 * 1024, "a");
    const pump = () => {
      while (sent < total) {
        const piece = sent === 0 ? Buffer.from(head) : filler;
        sent += piece.length;
        if (!req.write(piece)) return req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

describe("the upload limit", () => {
  it("is 160 MiB", () => {
    expect(UPLOAD_LIMIT).toBe(160 * 1024 * 1024);
  });

  it("refuses a 200 MB Content-Length with a readable 413 before the body is sent", async () => {
    for (const contentType of ["application/json", "multipart/form-data; boundary=x"]) {
      // Only 1 KiB of the announced 200 MB is sent and the request is left open: the answer can only come
      // if the server did not wait for the body.
      const answer = await send(base, {
        path: "/api/datasets",
        headers: { "content-type": contentType, "content-length": String(200_000_000) },
        body: "x".repeat(1024),
        end: false,
      });
      expect(answer.status).toBe(413);
      expect(errorOf(answer)).toMatchObject({ code: "body_too_large" });
      expect(errorOf(answer).message).toContain(
        "(200,000,000 bytes) is over the limit of 160 MiB (167,772,160 bytes)",
      );
    }
  });

  it("takes a body of exactly the limit's Content-Length (and reads it to say what is wrong)", async () => {
    const task = JSON.stringify(syntheticTask("at-limit"));
    const head = `{"task":${task},"format":"jsonl","content":"`;
    const body = Buffer.alloc(UPLOAD_LIMIT, " ");
    body.write(head);
    body.write('"}', UPLOAD_LIMIT - 2);
    const answer = await send(base, {
      path: "/api/datasets",
      headers: { "content-type": "application/json", "content-length": String(body.length) },
      body,
    });
    // The content is blanks only: read whole, found to hold no example (not refused for its size).
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: "invalid_dataset" });
    expect(errorOf(answer).message).toContain("holds no examples");
  });

  it("cuts off a chunked JSON body past the limit with 413 and closes the connection", async () => {
    const head = `{"task":${JSON.stringify(syntheticTask("chunked"))},"format":"jsonl","content":"`;
    const r = await chunked("application/json", head, UPLOAD_LIMIT + 4 * 1024 * 1024);
    expect(r.answer.status).toBe(413);
    expect(r.answer.headers.connection).toBe("close");
    expect(errorOf(r.answer)).toMatchObject({ code: "body_too_large" });
    expect(errorOf(r.answer).message).toContain("over the limit of 160 MiB");
    expect(await bench.storage.getUpload("chunked")).toBeUndefined();
  });

  it("cuts off a chunked multipart body past the limit with 413", async () => {
    const head =
      `--b\r\nContent-Disposition: form-data; name="task"\r\n\r\n${JSON.stringify(syntheticTask("chunked-form"))}\r\n` +
      `--b\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\n\r\n`;
    const r = await chunked("multipart/form-data; boundary=b", head, UPLOAD_LIMIT + 4 * 1024 * 1024);
    expect(r.answer.status).toBe(413);
    expect(r.answer.headers.connection).toBe("close");
    expect(errorOf(r.answer)).toMatchObject({ code: "body_too_large" });
    expect(await bench.storage.getUpload("chunked-form")).toBeUndefined();
  });

  it("still answers on the same server afterwards", async () => {
    const answer = await send(base, {
      path: "/api/datasets",
      headers: { "content-type": "application/json" },
      body: jsonUpload("after-limits", '{"id":"a","state":"x","labels":{"team":"billing"}}\n'),
    });
    expect(answer.status, answer.body).toBe(201);
  });
});

describe("uploads received at once", () => {
  it(`at most ${UPLOADS_AT_ONCE} are held open: the next answers 503 with Retry-After, and a place frees on abort`, async () => {
    const { hostname, port } = new URL(base);
    // Each opener declares a body near the limit, sends one byte and keeps the upload open.
    const open = () =>
      new Promise<Socket>((resolve) => {
        const s: Socket = connect(Number(port), hostname, () => {
          s.write(
            `POST /api/datasets HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${UPLOAD_LIMIT - 1}\r\n\r\n{`,
          );
          setTimeout(() => resolve(s), 150); // the request has taken its place
        });
      });
    const held: Socket[] = [];
    for (let i = 0; i < UPLOADS_AT_ONCE; i++) held.push(await open());
    const json = { "content-type": "application/json" };
    const body = (name: string) => jsonUpload(name, jsonl(syntheticExamples(3)));
    const refused = await send(base, { path: "/api/datasets", headers: json, body: body("one-too-many") });
    expect(refused.status).toBe(503);
    expect(refused.headers["retry-after"]).toBe("5");
    expect(errorOf(refused).code).toBe("too_many_uploads");
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 300)); // the aborted requests give their places back
    const accepted = await send(base, {
      path: "/api/datasets",
      headers: json,
      body: body("after-the-others"),
    });
    expect(accepted.status, accepted.body).toBe(201);
  });
});
