/**
 * One side of the throughput benchmark alone, for profiling: runs raw undici (`request()` or `dispatch()`) or
 * scorer.score against one
 * server (in its own process) at one concurrency and prints req/s and client CPU per request.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile.ts scorer constant [seconds] [concurrency]
 *   node --trace-gc --import tsx bench/profile.ts dispatch reference 5 64
 */

import { recordResults } from "../../../scripts/bench-results.mjs";
import { measure } from "./measure.js";
import { constantServer, referenceServer } from "./servers.js";
import { rawAgent, rawDispatchSide, rawRequestSide, scorerSide } from "./sides.js";

recordResults(import.meta.url, "one side of the throughput benchmark");

const [side = "scorer", which = "constant", seconds = "5", concurrency = "64"] = process.argv.slice(2);
if (!["request", "dispatch", "scorer"].includes(side) || !["constant", "reference"].includes(which)) {
  throw new Error(
    `usage: profile.ts request|dispatch|scorer constant|reference [seconds] [concurrency], got ${side} ${which}`,
  );
}
const server = which === "constant" ? await constantServer() : await referenceServer();
const agent = rawAgent();
const once =
  side === "request"
    ? rawRequestSide(server.url, agent)
    : side === "dispatch"
      ? rawDispatchSide(server.url, agent)
      : scorerSide(server.url);
const c = Number(concurrency);
await measure(c, 1000, once);
console.log("measuring");
const sample = await measure(c, Number(seconds) * 1000, once, server.child.pid);
console.log(
  `${side} against the ${which} server, c=${c}: ${sample.rps.toFixed(0)} req/s, client CPU ${sample.cpuUs.toFixed(0)} µs/request, server CPU ${sample.serverCpuUs.toFixed(0)} µs/request; ${sample.count} requests measured`,
);
server.child.kill();
process.exit(0);
