/** `workbench datasets`: the bundled datasets and the uploads of the data folder (nothing is loaded). */

import { join } from "node:path";
import { listDatasets } from "@decision-workbench/datasets";
import { DB_FILE, defaultDataDir } from "../config.js";
import { openStorage } from "../storage/sqlite.js";
import { parseFlags } from "./args.js";

/** `workbench datasets --help`. */
export const DATASETS_HELP = `workbench datasets [--json] [--data-dir D]

Lists the bundled datasets and the data folder's uploads: name, source, examples, items and description
(the names workbench run --dataset takes).

  --json         the list as JSON
  --data-dir D   the data folder (default: WORKBENCH_DATA_DIR or <repo>/.data/workbench)

For example:
  workbench datasets
`;

/** One line of the listing. */
interface Listed {
  name: string;
  source: "bundled" | "upload";
  examples: number;
  items: number;
  description: string;
}

/** Prints one line per dataset (name, source, examples, items, description), or JSON with --json. */
export async function datasetsCommand(argv: string[]): Promise<number> {
  const { flags } = parseFlags<{ "data-dir"?: string; json?: boolean }>("workbench datasets", argv, {
    "data-dir": { type: "string" },
    json: { type: "boolean" },
  });
  const storage = openStorage(join(flags["data-dir"] ?? defaultDataDir(), DB_FILE));
  try {
    const list: Listed[] = [
      ...listDatasets().map((d) => ({ ...d, source: "bundled" as const })),
      ...(await storage.listUploads()).map((u) => ({
        name: u.name,
        source: "upload" as const,
        examples: u.examples,
        items: u.task.items.length,
        description: u.task.description,
      })),
    ];
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      return 0;
    }
    const rows = list.map((d) => [
      d.name,
      d.source,
      String(d.examples),
      String(d.items),
      d.description.length > 70 ? `${d.description.slice(0, 69)}…` : d.description,
    ]);
    const head = ["name", "source", "examples", "items", "description"];
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
