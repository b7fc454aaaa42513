/** `workbench run`: one run against a server URL, stored in the data folder, with a progress bar. */

import { join } from "node:path";
import { DB_FILE, defaultDataDir } from "../config.js";
import { RunEngine } from "../engine/engine.js";
import { ApiError } from "../errors.js";
import { SecretBox } from "../secrets/box.js";
import { loadSecretKey } from "../secrets/key.js";
import { CONCURRENCY } from "../shapes/limits.js";
import type { RunEstimate, RunInput, RunSummary } from "../shapes/runs.js";
import { openStorage } from "../storage/sqlite.js";
import {
  amountFlag,
  intFlag,
  parseFlags,
  perMinuteFlag,
  REFERENCE_URL,
  splitListFlag,
  UsageError,
} from "./args.js";
import { budgetText, ProgressPrinter, round } from "./progress.js";
import { apiKeyFromEnv, splitsToRun } from "./run-source.js";
import { serverFor } from "./server-for.js";

/** `workbench run --help`. */
export const RUN_HELP = `workbench run --dataset D --server URL --model M [flags]

Runs a dataset against a decision server, stores the run in the data folder and prints its summary.

  --dataset D              a dataset (workbench datasets lists them)
  --server URL             the server's base URL (added to the data folder's servers, or reused)
  --model M                the model to ask
  --split LIST             the splits to run: train, calibration or test, comma-separated, or all (every
                           split of the dataset); default calibration,test (workbench fit fits on calibration
                           and evaluates on test; a run of one split is evaluated by cross-fitting)
  --api-key-env VAR        the environment variable holding the server's API key (stored encrypted)
  --concurrency 16         requests in flight
  --limit N                at most N examples of each split
  --max-len N              the tokens a long document may fill in one request (default 512)
  --timeout S              seconds before a request is abandoned
  --retries N              retries of a failed request
  --requests-per-minute N|none, --input-tokens-per-minute N|none   the server's rate limits
  --input-price P|none, --output-price P|none   the server's prices per million tokens
  --max-cost C, --max-input-tokens N   stop at the budget (exit 3)
  --estimate               print what the run would send; send nothing
  --data-dir D             the data folder (default: WORKBENCH_DATA_DIR or <repo>/.data/workbench)

Exit 0 when done, 1 when the run failed, 2 on a bad command line, 3 at the budget, 130 when interrupted.

For example, with workbench serve --reference-port 8009 running (its embedded reference server):
  workbench run --dataset penguins --server ${REFERENCE_URL} --model workbench-latest --split calibration,test
`;

interface RunFlags {
  dataset?: string;
  server?: string;
  model?: string;
  "api-key-env"?: string;
  split?: string[];
  concurrency?: string;
  "max-len"?: string;
  limit?: string;
  "data-dir"?: string;
  timeout?: string;
  retries?: string;
  "requests-per-minute"?: string;
  "input-tokens-per-minute"?: string;
  "input-price"?: string;
  "output-price"?: string;
  "max-cost"?: string;
  "max-input-tokens"?: string;
  estimate?: boolean;
}

/** `workbench run --estimate`: what the run would send, nothing sent. */
function printEstimate(e: RunEstimate): void {
  const cost =
    e.cost === null
      ? "cost: the server has no prices (--input-price and --output-price, per million tokens)"
      : `estimated cost ${round(e.cost)} (${e.inputPricePerMillion} / ${e.outputPricePerMillion} per million input / output tokens)`;
  process.stdout.write(
    `estimate: ${e.examples} requests (${e.decisions} decisions); estimated input tokens ${e.inputTokens}, output tokens ${e.outputTokens}; ${cost}\n`,
  );
}

function printSummary(s: RunSummary): void {
  const p = s.progress;
  const fmt = (x: number | null) => (x === null ? "n/a" : x.toFixed(4));
  process.stdout.write(
    [
      `run ${s.id} ${s.status}: ${p.done}/${p.total} examples of ${s.dataset} (${s.splits.join(", ")}) on ${s.model}${
        s.servedBy.length ? ` (served by ${s.servedBy.join(", ")})` : ""
      }`,
      `decisions: answered ${p.answered}, unknown ${p.unknown}, escalated ${p.escalated}; requests that failed: ${p.errors}`,
      `accuracy ${fmt(s.headline.accuracy)}${
        s.headline.n !== undefined && s.headline.accuracy !== null
          ? ` (${Math.round(s.headline.accuracy * s.headline.n)}/${s.headline.n})`
          : ""
      }, plain ECE ${fmt(s.headline.ece)}; latency p50 ${p.latency.p50} ms, p90 ${p.latency.p90} ms, p99 ${p.latency.p99} ms; ${p.examplesPerSecond.toFixed(1)} examples/s`,
      `tokens in ${p.usage.input_tokens}, out ${p.usage.output_tokens}, reasoning ${p.usage.reasoning_tokens}; cost ${round(p.cost)}`,
      ...(p.budget ? [`budget: ${budgetText(p)}`] : []),
    ].join("\n") + "\n",
  );
}

/**
 * Runs `workbench run`; exit code 0 when done (or estimated), 1 when the run failed (a ServiceError), 3 when it
 * stopped at its budget, 130 when interrupted.
 */
export async function runCommand(argv: string[]): Promise<number> {
  const { flags } = parseFlags<RunFlags>("workbench run", argv, {
    dataset: { type: "string" },
    server: { type: "string" },
    model: { type: "string" },
    "api-key-env": { type: "string" },
    split: { type: "string", multiple: true },
    concurrency: { type: "string" },
    "max-len": { type: "string" },
    limit: { type: "string" },
    "data-dir": { type: "string" },
    timeout: { type: "string" },
    retries: { type: "string" },
    "requests-per-minute": { type: "string" },
    "input-tokens-per-minute": { type: "string" },
    "input-price": { type: "string" },
    "output-price": { type: "string" },
    "max-cost": { type: "string" },
    "max-input-tokens": { type: "string" },
    estimate: { type: "boolean" },
  });
  for (const required of ["dataset", "server", "model"] as const) {
    if (!flags[required]) {
      throw new UsageError(
        `workbench run needs --${required}; for example: workbench run --dataset penguins --server ${REFERENCE_URL} --model workbench-latest (workbench run --help shows every flag)`,
      );
    }
  }
  const apiKey = apiKeyFromEnv(flags["api-key-env"]);
  const splitList = splitListFlag(flags.split, "split") ?? ["calibration", "test"];
  const concurrency = intFlag(flags.concurrency, "concurrency", CONCURRENCY.min, CONCURRENCY.max);
  const maxLen = intFlag(flags["max-len"], "max-len", 16, 1_000_000);
  const limit = intFlag(flags.limit, "limit", 1, Number.MAX_SAFE_INTEGER);
  const timeout = intFlag(flags.timeout, "timeout", 1, 3600);
  const retries = intFlag(flags.retries, "retries", 0, 20);
  const requestsPerMinute = perMinuteFlag(flags["requests-per-minute"], "requests-per-minute");
  const inputTokensPerMinute = perMinuteFlag(flags["input-tokens-per-minute"], "input-tokens-per-minute");
  const inputPricePerMillion = amountFlag(
    flags["input-price"],
    "input-price",
    "0.15 per million input tokens",
  );
  const outputPricePerMillion = amountFlag(
    flags["output-price"],
    "output-price",
    "0.6 per million output tokens",
  );
  const maxCost = amountFlag(flags["max-cost"], "max-cost", "2.5");
  const maxInputTokens = amountFlag(flags["max-input-tokens"], "max-input-tokens", "500000");
  const dataDir = flags["data-dir"] ?? defaultDataDir();
  const box = new SecretBox(loadSecretKey(dataDir));
  const storage = openStorage(join(dataDir, DB_FILE));
  const engine = new RunEngine({ storage, secrets: box });
  try {
    const splits = await splitsToRun(storage, flags.dataset, splitList, "runs");
    const serverId = await serverFor(storage, box, flags.server as string, flags.model as string, apiKey, {
      ...(timeout !== undefined ? { timeout } : {}),
      ...(retries !== undefined ? { retries } : {}),
      ...(requestsPerMinute !== undefined ? { requestsPerMinute } : {}),
      ...(inputTokensPerMinute !== undefined ? { inputTokensPerMinute } : {}),
      ...(inputPricePerMillion !== undefined ? { inputPricePerMillion } : {}),
      ...(outputPricePerMillion !== undefined ? { outputPricePerMillion } : {}),
    });
    const input: RunInput = {
      dataset: flags.dataset as string,
      serverId,
      model: flags.model as string,
      splits,
      ...(concurrency !== undefined ? { concurrency } : {}),
      ...(maxLen !== undefined ? { maxLen } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(maxCost !== undefined ? { maxCost } : {}),
      ...(maxInputTokens !== undefined ? { maxInputTokens } : {}),
    };
    let created: RunSummary;
    try {
      if (flags.estimate) {
        printEstimate(await engine.estimate(input));
        return 0;
      }
      created = await engine.create(input);
    } catch (err) {
      if (err instanceof ApiError) throw new UsageError(err.message);
      throw err;
    }
    const printer = new ProgressPrinter(process.stderr);
    process.stderr.write(`run ${created.id}: ${created.progress.total} examples\n`);
    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
      process.stderr.write("\ninterrupted: cancelling the run (answers in flight are stored)\n");
      void engine.cancel(created.id).catch(() => {});
    };
    process.once("SIGINT", onSignal);
    const unfollow = engine.follow(created.id, { progress: (current) => printer.update(current) });
    await engine.settle(created.id);
    unfollow?.();
    process.off("SIGINT", onSignal);
    const summary = await engine.summary(created.id);
    printer.end(summary.progress);
    printSummary(summary);
    if (summary.status === "stopped") {
      process.stderr.write(
        `run ${summary.id} stopped: its budget is reached (${budgetText(summary.progress)}); resume it with a higher cap (POST /api/runs/${summary.id}/resume)\n`,
      );
      return 3;
    }
    if (summary.status === "failed") {
      process.stderr.write(`run ${summary.id} failed: ${summary.error}\n`);
      return 1;
    }
    return interrupted ? 130 : 0;
  } finally {
    await engine.close();
    await storage.close();
  }
}
