/** Uploads written straight into a workbench's SQLite file, for the tests of pending and abandoned uploads. */

import type Database from "better-sqlite3";
import type { ExampleRow, UploadRow } from "../src/storage/types.js";
import { insertExamples, reserveUpload } from "../src/storage/upload-sql.js";
import { syntheticExamples, syntheticTask } from "./fixtures.js";

/** The synthetic dataset `name` as rows, `count` examples. */
export function uploadRows(name: string, count: number): [UploadRow, ExampleRow[]] {
  const examples = syntheticExamples(count) as unknown as ExampleRow[];
  const row: UploadRow = {
    name,
    task: syntheticTask(name) as UploadRow["task"],
    hash: "h",
    examples: count,
    splits: { train: 0, calibration: 0, test: 0 },
    createdAt: new Date().toISOString(),
  };
  for (const e of examples) row.splits[e.split]++;
  return [row, examples];
}

/** Reserves `name` under `owner` and stores `count` examples, without completing the upload. */
export async function halfStored(db: Database.Database, name: string, count: number, owner: string) {
  const [row, examples] = uploadRows(name, count);
  reserveUpload(db, row, owner);
  await insertExamples(db, name, owner, examples);
}

/** The rows stored under `name`, pending or not. */
export function storedRows(db: Database.Database, name: string): { datasets: number; examples: number } {
  const count = (sql: string) => db.prepare(sql).pluck().get(name) as number;
  return {
    datasets: count("SELECT count(*) FROM datasets WHERE name = ?"),
    examples: count("SELECT count(*) FROM examples WHERE dataset = ?"),
  };
}
