/** Worker thread entry: loads the named datasets and trains every version on them. */

import { parentPort, workerData } from "node:worker_threads";
import { importDatasets } from "./datasets-module.js";
import { trainVersions } from "./train.js";
import { VERSIONS } from "./versions.js";

const { names } = workerData as { names: string[] };
const { module } = await importDatasets();
const datasets = [];
for (const name of names) datasets.push(await module.loadDataset(name));
parentPort?.postMessage(trainVersions(VERSIONS, datasets));
