/** A small server for the benchmarks: the built app from dist/ and the fixture API of a run of N predictions. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize } from "node:path";
import {
  calibration,
  choiceReport,
  comparison,
  datasetDetail,
  itemRows,
  multiReport,
  runSummary,
  servers,
} from "./fixtures";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** Precomputed JSON bodies of every route the views call, for a run of `n` predictions per item. */
function fixtureRoutes(n: number): (path: string, query: URLSearchParams) => unknown {
  const choice = choiceReport(n);
  const multi = multiReport(n);
  const items = itemRows(n);
  const run = runSummary("run_bench", n);
  const run2 = runSummary("run_bench2", n, "bayes-1");
  const dataset = datasetDetail(n);
  const cal = calibration(n);
  const cmp = comparison(n);
  return (path, query) => {
    if (path === "/api/runs") return [run, run2];
    if (path === "/api/runs/run_bench" || path === "/api/runs/run_bench2")
      return path.endsWith("2") ? run2 : run;
    if (path.endsWith("/report")) return query.get("item") === "properties" ? multi : choice;
    if (path.endsWith("/items")) return items;
    if (path === "/api/datasets") return [dataset];
    if (path.startsWith("/api/datasets/")) return dataset;
    if (path === "/api/servers") return servers();
    if (path === "/api/calibrations") return [cal];
    if (path.startsWith("/api/calibrations/")) return cal;
    if (path === "/api/compare") return cmp;
    return undefined;
  };
}

/** Serves `dist` (SPA fallback) and the fixture API; resolves with its URL once listening on 127.0.0.1. */
export async function startBenchServer(dist: string, n: number): Promise<{ url: string; server: Server }> {
  const route = fixtureRoutes(n);
  const bodies = new Map<string, string>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname.startsWith("/api/")) {
      const key = url.pathname + url.search;
      let body = bodies.get(key);
      if (body === undefined) {
        const value = route(url.pathname, url.searchParams);
        if (value === undefined) {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ error: { code: "not_found", message: `no fixture for ${url.pathname}` } }),
          );
          return;
        }
        body = JSON.stringify(value);
        bodies.set(key, body);
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
      return;
    }
    const file = normalize(join(dist, url.pathname));
    const path =
      file.startsWith(dist) && existsSync(file) && statSync(file).isFile() ? file : join(dist, "index.html");
    res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
