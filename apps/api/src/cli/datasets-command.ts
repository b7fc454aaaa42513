/** `workbench datasets`: the bundled datasets and the uploads of the data folder. */

import { join } from "node:path";
import { listDatasetSummaries } from "../catalog/catalog.js";
import { DB_FILE, defaultDataDir } from "../config.js";
import { openStorage } from "../storage/sqlite.js";
import { parseFlags } from "./args.js";

/** Prints one line per dataset: name, source, examples per split, items. */
export async function datasetsCommand(argv: string[]): Promise<number> {
  const { flags } = parseFlags<{ "data-dir"?: string; json?: boolean }>("datasets", argv, {
    "data-dir": { type: "string" },
    json: { type: "boolean" },
  });
  const storage = openStorage(join(flags["data-dir"] ?? defaultDataDir(), DB_FILE));
  try {
    const list = await listDatasetSummaries(storage);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return 0;
    }
    const rows = list.map((d) => [
      d.name,
      d.source,
      String(d.examples),
      `${d.splits.train}/${d.splits.calibration}/${d.splits.test}`,
      d.items.map((i) => `${i.name} (${i.kind})`).join(", "),
    ]);
    const head = ["name", "source", "examples", "train/calibration/test", "items"];
    const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
    for (const r of [head, ...rows]) {
      process.stdout.write(
        `${r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]))).join("  ")}\n`,
      );
    }
    return 0;
  } finally {
    await storage.close();
  }
}
