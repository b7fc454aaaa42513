import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { packageDir } from "../paths.js";
import { splitOf } from "../split.js";
import type { Example } from "../types.js";

/**
 * vega-datasets' seattle-weather.csv (date, precipitation, temp_max, temp_min, wind, weather) as mapping
 * states in that column order without the weather column; id "seattle-<date>".
 */
export async function loadSeattleWeather(): Promise<Example[]> {
  const file = join(packageDir("vega-datasets"), "data", "seattle-weather.csv");
  const lines = (await readFile(file, "utf8")).trim().split(/\r?\n/);
  const header = lines[0].split(",");
  const expected = "date,precipitation,temp_max,temp_min,wind,weather";
  if (header.join(",") !== expected)
    throw new Error(`seattle-weather.csv header changed: expected ${expected}`);
  return lines.slice(1).map((line) => {
    const [date, precipitation, tempMax, tempMin, wind, weather] = line.split(",");
    const id = `seattle-${date}`;
    return {
      id,
      state: {
        date,
        precipitation: Number(precipitation),
        temp_max: Number(tempMax),
        temp_min: Number(tempMin),
        wind: Number(wind),
      },
      labels: { weather },
      split: splitOf(id),
    };
  });
}
