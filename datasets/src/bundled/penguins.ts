import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageDir } from "../paths.js";
import { splitOf } from "../split.js";
import type { Example } from "../types.js";
import { NOT_STATED } from "../types.js";

interface PenguinRow {
  Species: string;
  Island: string;
  "Beak Length (mm)": number | null;
  "Beak Depth (mm)": number | null;
  "Flipper Length (mm)": number | null;
  "Body Mass (g)": number | null;
  Sex: string | null;
}

/** Body-mass band edges in grams: [3500, 4000, 4750] split the birds into the four levels of body_mass. */
export const BODY_MASS_EDGES = [3500, 4000, 4750] as const;
const LEVELS = ["under 3.5 kg", "3.5 to 4 kg", "4 to 4.75 kg", "4.75 kg or more"];

function band(grams: number): string {
  let i = 0;
  while (i < BODY_MASS_EDGES.length && grams >= BODY_MASS_EDGES[i]) i++;
  return LEVELS[i];
}

/**
 * vega-datasets' penguins.json as mapping states {Island, Beak Length (mm), Beak Depth (mm),
 * Flipper Length (mm), Sex?}; id "penguin-<row>" with the 1-based row of the file. Rows without a body mass
 * (and so without any measurement) are left out; Sex is left out of the state when the record has none.
 */
export async function loadPenguins(): Promise<Example[]> {
  const file = join(packageDir("vega-datasets"), "data", "penguins.json");
  const rows = JSON.parse(await readFile(file, "utf8")) as PenguinRow[];
  const out: Example[] = [];
  rows.forEach((r, i) => {
    const mass = r["Body Mass (g)"];
    if (mass === null) return;
    const id = `penguin-${String(i + 1).padStart(3, "0")}`;
    const state: Record<string, unknown> = {
      Island: r.Island,
      "Beak Length (mm)": r["Beak Length (mm)"],
      "Beak Depth (mm)": r["Beak Depth (mm)"],
      "Flipper Length (mm)": r["Flipper Length (mm)"],
    };
    const sex = r.Sex === "MALE" ? "male" : r.Sex === "FEMALE" ? "female" : null;
    if (sex !== null) state.Sex = r.Sex;
    out.push({
      id,
      state,
      labels: { species: r.Species, body_mass: band(mass), sex: sex ?? NOT_STATED },
      meta: { row: i + 1, bodyMassG: mass, rawSex: r.Sex },
      split: splitOf(id),
    });
  });
  return out;
}
