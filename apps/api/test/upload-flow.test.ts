// The event loop holds little of an upload on its way to the upload thread: at most IN_FLIGHT_BYTES wait for the
// thread (a thread still starting makes the request wait), and the copies' buffers come back to carry later
// chunks, so a large body is carried in a few buffers. A real upload thread storing into a real SQLite file.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { IN_FLIGHT_BYTES, UploadJobs } from "../src/catalog/upload-thread.js";
import { openStorage } from "../src/storage/sqlite.js";
import { tempDir } from "./helpers.js";
import { bigJsonl, jsonUpload } from "./upload-http.js";

const tmp = tempDir();
afterAll(() => tmp.cleanup());

const CHUNK = 64 * 1024;

describe("an upload's bytes on their way to its thread", () => {
  it("wait for a thread that has not started, come back as buffers, and store the upload whole", async () => {
    const path = join(tmp.dir, "flow.sqlite");
    const storage = openStorage(path);
    const jobs = new UploadJobs({ kind: "sqlite", path }, (upload) => storage.abandonUpload(upload));
    try {
      const body = jsonUpload("flow", bigJsonl(60_000)); // ~5.8 MB
      const job = jobs.start();
      job.field("body", { size: body.length });
      // the thread is still starting: the first chunks are all held, until the bound says to wait
      let at = 0;
      let full = false;
      while (!full && at < body.length) {
        full = !job.write(body.subarray(at, at + CHUNK));
        at += CHUNK;
      }
      expect(full, "write() says to wait once IN_FLIGHT_BYTES are held").toBe(true);
      expect(job.held.pending).toBeGreaterThanOrEqual(IN_FLIGHT_BYTES);
      expect(job.held.pending).toBeLessThan(IN_FLIGHT_BYTES + CHUNK);
      await job.drained();
      expect(job.held.pending).toBeLessThan(IN_FLIGHT_BYTES / 2);
      // the rest as a client would send it: waiting whenever write() says so
      let most = 0;
      let waits = 0;
      for (; at < body.length; at += CHUNK) {
        const more = job.write(body.subarray(at, at + CHUNK));
        most = Math.max(most, job.held.pending);
        if (!more) {
          waits++;
          await job.drained();
        }
      }
      const row = await job.finish("json", null);
      expect(row).toMatchObject({ name: "flow", examples: 60_000 });
      expect(most).toBeLessThan(IN_FLIGHT_BYTES + CHUNK);
      // 90 chunks, carried in about IN_FLIGHT_BYTES / CHUNK buffers (one each without their return)
      const chunks = Math.ceil(body.length / CHUNK);
      expect(chunks).toBeGreaterThan(80);
      expect(job.held.buffers).toBeLessThanOrEqual(IN_FLIGHT_BYTES / CHUNK + 2);
      console.log(`${chunks} chunks in ${job.held.buffers} buffers; ${waits} waits after the start`);
      const page = await storage.pageExamples("flow", { limit: 1, offset: 59_999 });
      expect(page).toMatchObject({ total: 60_000, examples: [{ id: "r0059999" }] });
    } finally {
      await jobs.close();
      await storage.close();
    }
  }, 60_000);
});
