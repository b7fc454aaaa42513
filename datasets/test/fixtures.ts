import { readFileSync } from "node:fs";
import type { Task } from "../src/index.js";

const dir = new URL("./fixtures/", import.meta.url);

/** A fixture file's bytes. */
export function fixtureBytes(name: string): Uint8Array {
  return readFileSync(new URL(name, dir));
}

/** A fixture file's text. */
export function fixtureText(name: string): string {
  return readFileSync(new URL(name, dir), "utf8");
}

/** The fixture task covering every item kind. */
export const task: Task = JSON.parse(fixtureText("task.json")) as Task;
