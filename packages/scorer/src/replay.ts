import { toDecision } from "./decisions.js";
import type { NormalItem } from "./items.js";
import type { Decision, ReplayDifference } from "./types.js";

/** Probabilities closer than this are the same. */
const REPLAY_TOLERANCE = 1e-6;

/** Compares a recorded decision with another one (recomputed from its record, or answered again). */
export function compareDecisions(recorded: Decision, now: Decision): ReplayDifference[] {
  const out: ReplayDifference[] = [];
  if (recorded.status !== now.status) {
    out.push({
      field: "status",
      recorded: recorded.status,
      now: now.status,
      detail: now.status === "escalated" ? now.reason : undefined,
    });
    return out;
  }
  if (recorded.status === "escalated" || now.status === "escalated") return out;
  if (recorded.status === "answered" && now.status === "answered") {
    if (JSON.stringify(recorded.answer) !== JSON.stringify(now.answer)) {
      out.push({ field: "answer", recorded: recorded.answer, now: now.answer });
    }
  }
  const names = new Set([...Object.keys(recorded.probabilities), ...Object.keys(now.probabilities)]);
  const moved: string[] = [];
  let largest = 0;
  for (const name of names) {
    const a = recorded.probabilities[name];
    const b = now.probabilities[name];
    const gap = a === undefined || b === undefined ? Number.POSITIVE_INFINITY : Math.abs(a - b);
    if (gap > REPLAY_TOLERANCE) {
      moved.push(name);
      largest = Math.max(largest, gap);
    }
  }
  if (moved.length) {
    out.push({
      field: "probabilities",
      recorded: recorded.probabilities,
      now: now.probabilities,
      detail: `${moved.map((n) => `'${n}'`).join(", ")} moved by up to ${largest}`,
    });
  }
  if (Math.abs(recorded.confidence - now.confidence) > REPLAY_TOLERANCE && !moved.length) {
    out.push({ field: "confidence", recorded: recorded.confidence, now: now.confidence });
  }
  return out;
}

/** Recomputes a recorded decision from its own logits: what it must say if nothing was altered. */
export function recompute(item: NormalItem, recorded: Decision): Decision | string {
  const logits = recorded.logits;
  if (
    !Array.isArray(logits) ||
    logits.length !== item.options.length ||
    logits.some((x) => typeof x !== "number")
  ) {
    return `the recorded logits do not fit item '${item.name}' (${item.options.length} options)`;
  }
  const unknown = "unknown" in recorded ? recorded.unknown : undefined;
  if (item.notStated !== (typeof unknown === "number")) {
    return `the recorded decision ${item.notStated ? "lacks" : "has"} a 'not stated' score, unlike item '${item.name}'`;
  }
  return toDecision(item, { logits, unknown, record: recorded.extra.decision });
}
