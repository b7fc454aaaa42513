import { createHash } from "node:crypto";
import type { Split } from "./types.js";

/**
 * The deterministic split of an id: the first 32 bits of SHA-256(id, UTF-8) as a fraction u in [0, 1);
 * u < 0.5 is train, u < 0.75 is calibration, the rest is test.
 */
export function splitOf(id: string): Split {
  const u = createHash("sha256").update(id, "utf8").digest().readUInt32BE(0) / 2 ** 32;
  if (u < 0.5) return "train";
  if (u < 0.75) return "calibration";
  return "test";
}
