/** A Server-Sent Events reader for the tests: collects events until the stream ends. */

import { request } from "node:http";

/** One event. */
export interface SseEvent {
  event: string;
  data: unknown;
}

/** Opens `url`; `onFirst` runs after the first event arrives; resolves with every event once the server ends the stream. */
export function readEvents(
  url: string,
  opts: { headers?: Record<string, string>; onFirst?: () => void } = {},
): Promise<{ status: number; contentType: string; events: SseEvent[] }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: "text/event-stream", ...opts.headers } }, (res) => {
      const events: SseEvent[] = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        for (;;) {
          const end = buffer.indexOf("\n\n");
          if (end < 0) break;
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) event = line.slice(7);
            else if (line.startsWith("data: ")) data.push(line.slice(6));
          }
          if (!data.length) continue;
          events.push({ event, data: JSON.parse(data.join("\n")) });
          if (events.length === 1) opts.onFirst?.();
        }
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"]), events }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
