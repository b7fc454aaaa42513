/** Timed closed-loop runs and the statistics the benchmark prints. */
import { performance } from "node:perf_hooks";
import { processCpuUs } from "./servers.js";

/** One timed run of one side. */
export interface Sample {
  /** Requests completed. */
  count: number;
  rps: number;
  /** Median request latency, ms. */
  medianMs: number;
  /** The benchmark process's CPU (user + system, all threads, so GC too) per request, µs. */
  cpuUs: number;
  /** The system (kernel) part of cpuUs: sockets and the loopback network stack. */
  sysUs: number;
  /** The server process's CPU per request, µs (10 ms ticks: coarse on short rounds). */
  serverCpuUs: number;
}

/** Runs `once` in `concurrency` closed loops for `ms` milliseconds. */
export async function measure(
  concurrency: number,
  ms: number,
  once: () => Promise<void>,
  serverPid?: number,
): Promise<Sample> {
  const latencies: number[] = [];
  const server = processCpuUs(serverPid);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const end = started + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await once();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const n = latencies.length;
  return {
    count: n,
    rps: n / (wall / 1000),
    medianMs: median(latencies),
    cpuUs: (used.user + used.system) / n,
    sysUs: used.system / n,
    serverCpuUs: (processCpuUs(serverPid) - server) / n,
  };
}

/** The median. */
export const median = (xs: number[]): number => quantile(xs, 0.5);

/** The q-quantile, interpolated between neighbours. */
export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo] + (s[hi] - s[lo]) * (at - lo);
}
