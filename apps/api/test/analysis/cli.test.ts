// workbench report | fit | check on a real data folder, against the reference server before and after a weight swap.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateCalibrationFile } from "@decision-workbench/calibration";
import { type DecisionServerHandle, startDecisionServer } from "@decision-workbench/decision-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheckCommand, runFitCommand, runReportCommand } from "../../src/cli/analysis-commands.js";
import { UsageError } from "../../src/cli/args.js";
import { runCommand } from "../../src/cli/run-command.js";
import { DB_FILE } from "../../src/config.js";
import type { Calibration } from "../../src/shapes/calibrations.js";
import { openStorage } from "../../src/storage/sqlite.js";

let dir: string;
let server: DecisionServerHandle | undefined;
let port: number;
let runId: string;

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

async function swapTo(alias: string): Promise<void> {
  await server?.close();
  server = await startDecisionServer({ port, host: "127.0.0.1", alias });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wb-cli-analysis-"));
  server = await startDecisionServer({ port: 0, host: "127.0.0.1", alias: "bayes-1" });
  port = Number(new URL(server.url).port);
  const code = await runCommand([
    "--dataset",
    "penguins",
    "--server",
    server.url,
    "--model",
    "workbench-latest",
    "--data-dir",
    dir,
  ]);
  expect(code).toBe(0);
  const storage = openStorage(join(dir, DB_FILE));
  runId = (await storage.listRuns())[0].id;
  await storage.close();
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("workbench report", () => {
  it("prints every item's metrics with intervals", async () => {
    const c = capture();
    expect(await runReportCommand([runId, "--data-dir", dir], c.io)).toBe(0);
    const text = c.out.join("");
    for (const item of ["species", "body_mass", "sex"]) expect(text).toMatch(new RegExp(`^${item} \\(`, "m"));
    expect(text).toMatch(/accuracy \d\.\d{4} \[\d\.\d{4}, \d\.\d{4}\]/);
    expect(text).toMatch(/Unknown: predicted/);
  });

  it("prints JSON for one item", async () => {
    const c = capture();
    expect(await runReportCommand([runId, "--item", "species", "--json", "--data-dir", dir], c.io)).toBe(0);
    const doc = JSON.parse(c.out.join("")) as { items: { item: { name: string }; n: number }[] };
    expect(doc.items.map((i) => i.item.name)).toEqual(["species"]);
    expect(doc.items[0].n).toBeGreaterThan(0);
  });

  it("exits 1 naming an unknown run, and refuses a bad command line", async () => {
    const c = capture();
    expect(await runReportCommand(["run_nope", "--data-dir", dir], c.io)).toBe(1);
    expect(c.err.join("")).toMatch(/run "run_nope" does not exist/);
    await expect(runReportCommand(["--data-dir", dir], c.io)).rejects.toThrow(UsageError);
    await expect(runReportCommand([runId, "--split", "dev", "--data-dir", dir], c.io)).rejects.toThrow(
      /--split/,
    );
  });
});

describe("workbench fit and check", () => {
  let file: string;
  let fitText: string;

  beforeAll(async () => {
    file = join(dir, "calibration.json");
    const c = capture();
    const code = await runFitCommand(
      [
        runId,
        "--method",
        "auto",
        "--out",
        file,
        "--target-risk",
        "0.1",
        "--resamples",
        "200",
        "--data-dir",
        dir,
      ],
      c.io,
    );
    expect(c.err.join("")).toBe("");
    expect(code).toBe(0);
    fitText = c.out.join("");
    expect(fitText).toMatch(/\* \w+/);
  });

  it("says how each method was selected and evaluated, and prints every warning", async () => {
    const storage = openStorage(join(dir, DB_FILE));
    const [stored] = await storage.listCalibrations({ runId });
    await storage.close();
    const cal = stored.payload as unknown as Calibration;
    for (const item of Object.keys(cal.candidates)) {
      expect(fitText).toContain(`${item}: ${cal.file.questions[item].method}, fitted on calibration (n = `);
      expect(fitText).toContain(cal.selection![item].note);
      expect(cal.selection![item].note).toMatch(/^chosen by 5-fold cross-fitting on calibration; /);
      expect(fitText).toMatch(new RegExp(`evaluated once on test \\(n = ${cal.fit!.n[item].eval}\\)`));
      for (const w of cal.warnings![item]) expect(fitText).toContain(`warning: ${w}`);
    }
  });

  it("writes a valid calibration file and stores the calibration", async () => {
    const doc = JSON.parse(readFileSync(file, "utf8"));
    expect(validateCalibrationFile(doc).ok).toBe(true);
    expect(doc.source.served_by).toEqual(["bayes-1"]);
    const storage = openStorage(join(dir, DB_FILE));
    expect((await storage.listCalibrations({ runId })).length).toBe(1);
    await storage.close();
  });

  it("exits 0 while the same model serves, and 1 with the reason after a weight swap", async () => {
    const args = [
      "--calibration",
      file,
      "--dataset",
      "penguins",
      "--server",
      server!.url,
      "--model",
      "workbench-latest",
    ];
    const same = capture();
    expect(await runCheckCommand([...args, "--data-dir", dir], same.io)).toBe(0);
    expect(same.out.join("")).toMatch(/^ok: /);
    await swapTo("bayes-2");
    const swapped = capture();
    expect(await runCheckCommand([...args, "--data-dir", dir], swapped.io)).toBe(1);
    const text = swapped.out.join("");
    expect(text).toMatch(/^FAILED/);
    expect(text).toMatch(/reason: the run was served by \[bayes-2\], the file was fitted on \[bayes-1\]/);
    await swapTo("bayes-1");
  });

  it("refuses a broken calibration file and a bad method, saying what is wrong", async () => {
    const broken = join(dir, "broken.json");
    writeFileSync(broken, JSON.stringify({ schema: "decision-workbench/calibration@1", questions: {} }));
    const c = capture();
    await expect(
      runCheckCommand(
        [
          "--calibration",
          broken,
          "--dataset",
          "penguins",
          "--server",
          server!.url,
          "--model",
          "workbench-latest",
          "--data-dir",
          dir,
        ],
        c.io,
      ),
    ).rejects.toThrow(/not a valid calibration file:[\s\S]*questions: is empty/);
    await expect(
      runFitCommand([runId, "--method", "magic", "--out", file, "--data-dir", dir], c.io),
    ).rejects.toThrow(/--method "magic" is not a method/);
    await expect(runFitCommand([runId, "--data-dir", dir], c.io)).rejects.toThrow(/--out/);
  });
  it("honours a forced method and refuses a selection split the run lacks", async () => {
    const forcedFile = join(dir, "forced.json");
    const c = capture();
    const code = await runFitCommand(
      [runId, "--method", "temperature", "--out", forcedFile, "--resamples", "50", "--data-dir", dir],
      c.io,
    );
    expect(code).toBe(0);
    const doc = JSON.parse(readFileSync(forcedFile, "utf8"));
    for (const q of Object.values(doc.questions) as { method: string; selection: { by: string } }[]) {
      expect(q.method).toBe("temperature");
      expect(q.selection.by).toBe("user");
    }
    expect(c.out.join("")).toMatch(/temperature was chosen by the user; no selection was run/);
    const missing = capture();
    const refused = await runFitCommand(
      [runId, "--selection-split", "train", "--out", forcedFile, "--data-dir", dir],
      missing.io,
    );
    expect(refused).toBe(1);
    expect(missing.err.join("")).toMatch(/no train split/);
    await expect(
      runFitCommand([runId, "--selection-split", "validation", "--out", forcedFile, "--data-dir", dir], c.io),
    ).rejects.toThrow(/--selection-split must be train, calibration or test/);
  });
});
