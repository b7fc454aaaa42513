import type { DecisionServerHandle, FaultPlan, RateLimit } from "@decision-workbench/decision-server";
import { startDecisionServer } from "@decision-workbench/decision-server";
import { afterAll } from "vitest";

/** Starts the reference decision server on a free 127.0.0.1 port; it stops after the test file. */
export async function referenceServer(
  options: {
    faults?: FaultPlan;
    apiKey?: string;
    alias?: string;
    port?: number;
    checkpoints?: boolean;
    rateLimit?: RateLimit | string;
  } = {},
): Promise<DecisionServerHandle> {
  const server = await startDecisionServer({ port: 0, ...options });
  afterAll(() => server.close());
  return server;
}

/** Records the waits a scorer asks for, without waiting. */
export function recordingSleep(): { waits: number[]; sleep: (s: number) => Promise<void> } {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (s: number) => {
      waits.push(s);
    },
  };
}
