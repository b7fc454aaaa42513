// A child process's resident memory, read from Linux's /proc, for the benches.

import { readFileSync, writeFileSync } from "node:fs";

/** VmHWM (peak) or VmRSS (now) of a process, in MB. */
export function rssMb(pid: number, field: "VmHWM" | "VmRSS" = "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
}

/** Sets a process's peak RSS (VmHWM) back to its RSS now (Linux: 5 into /proc/PID/clear_refs); false when refused. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    return true;
  } catch {
    return false;
  }
}
