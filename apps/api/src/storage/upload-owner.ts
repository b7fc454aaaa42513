/**
 * Who is storing a pending upload, and whether it is gone. A pending upload's `datasets.pending` column holds
 * its owner as JSON: the process (pid and start time, so that a pid used again by a later process is not taken
 * for the owner) and the upload's own id (so that each write can check the reservation is still its own).
 */

import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { processAlive } from "../process-alive.js";

/** The owner of a pending upload. */
export interface UploadOwner {
  pid: number;
  /** When the owning process started, in milliseconds since the epoch. */
  start: number;
  /** The upload's id: one per attempt. */
  upload: string;
}

/** When this process started (every thread of it computes the same time, give or take a millisecond). */
export const PROCESS_START = Math.round(Date.now() - process.uptime() * 1000);

/**
 * How far apart two readings of one process's start time may be: this process's own reading differs by a
 * millisecond or so between threads; Linux gives other processes' start times to the second.
 */
const START_SLACK_MS = 2_000;

/** The owner text (the `pending` value) of a new upload of this process. */
export function newOwner(upload: string = randomUUID()): string {
  return JSON.stringify({ pid: process.pid, start: PROCESS_START, upload } satisfies UploadOwner);
}

/** This machine's name, in the owner of an upload to a shared (PostgreSQL) database. */
export const HOST = hostname();

/**
 * The owner text of a new upload (id `upload`) of this process to a shared database: with its host, so that a
 * process on another machine is never judged gone by this one (pg-uploads.ts).
 */
export function newPgOwner(upload?: string): string {
  return JSON.stringify({ ...JSON.parse(newOwner(upload)), host: HOST });
}

/** The owner in a `pending` value; undefined when the text is not one. */
export function ownerOf(pending: string): UploadOwner | undefined {
  try {
    const o = JSON.parse(pending) as Partial<UploadOwner>;
    if (typeof o.pid === "number" && typeof o.start === "number" && typeof o.upload === "string") {
      return o as UploadOwner;
    }
  } catch {}
  return undefined;
}

/**
 * When the process `pid` started, from Linux's /proc (start ticks since boot, at USER_HZ = 100 a second);
 * undefined elsewhere or when it cannot be read.
 */
function startOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]); // field 22, starttime
    const boot = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    return Number.isFinite(ticks) && Number.isFinite(boot) ? boot * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that owned a pending upload is gone: no process has its pid; or this process has it but
 * started at another time (a restart that was given the same pid, as in a container); or (Linux) the process
 * with that pid started after the owner did. An owner that cannot be told apart from a live process counts as
 * alive: its upload stays hidden and its name taken, never deleted under a live writer. A text that is not an
 * owner is gone.
 */
export function ownerGone(pending: string): boolean {
  const owner = ownerOf(pending);
  if (!owner) return true;
  if (owner.pid === process.pid) return Math.abs(owner.start - PROCESS_START) > START_SLACK_MS;
  if (!processAlive(owner.pid)) return true;
  const started = startOf(owner.pid);
  return started !== undefined && started > owner.start + START_SLACK_MS;
}
