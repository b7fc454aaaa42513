/** Trains every checkpoint version on the `train` split of every bundled dataset. */

import { compileTarget, logScores } from "./compile.js";
import type { LoadedDataset } from "./dataset-types.js";
import { damp, extractFeatures, type StateFeatures } from "./features.js";
import { addExample, emptyStats, type TargetStats } from "./stats.js";
import { type TargetSpec, targetsOf } from "./targets.js";
import { fitTemperature } from "./temperature.js";
import type { VersionConfig } from "./versions.js";
import { chooseVocabulary, Interner, type WordRow } from "./vocabulary.js";

/** Words kept per dataset: seen at least this often in the training share... */
const MIN_WORD_COUNT = 2;
/** ...and at most this many, the most frequent first. */
const MAX_VOCABULARY = 20_000;

/** One trained target: the statistics of one question of one dataset item. */
interface TrainedTarget {
  key: string;
  label: string;
  stats: TargetStats;
  temperature: number;
}

/** The targets of one dataset and the vocabulary their word counts index. */
interface TrainedDataset {
  name: string;
  vocab: string[];
  targets: TrainedTarget[];
}

/** A trained checkpoint version. */
export interface TrainedVersion {
  version: string;
  datasets: TrainedDataset[];
}

/** FNV-1a of a salted id: the deterministic coin that picks training subsets. */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  const text = `decision-server|${id}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

interface Row {
  features: StateFeatures;
  words: WordRow;
  labels: Record<string, string | string[]>;
  hash: number;
}

interface Spec {
  spec: TargetSpec;
  item: string;
}

function accumulate(
  specs: Spec[],
  rows: Row[],
  interner: Interner,
): { vocab: string[]; stats: TargetStats[] } {
  const { vocab, index } = chooseVocabulary(
    interner,
    rows.map((r) => r.words),
    MIN_WORD_COUNT,
    MAX_VOCABULARY,
  );
  const stats = specs.map(({ spec }) => emptyStats(spec.classes));
  const counts = specs.map(({ spec }) => new Float64Array(vocab.length * spec.classes.length));
  for (const row of rows) {
    for (let t = 0; t < specs.length; t++) {
      const { spec, item } = specs[t];
      const c = spec.classOf(row.labels[item]);
      if (c < 0) continue;
      addExample(stats[t], row.features, c);
      const k = spec.classes.length;
      const table = counts[t];
      const { ids, counts: n } = row.words;
      for (let i = 0; i < ids.length; i++) {
        const v = index[ids[i]];
        if (v >= 0) table[v * k + c] += n[i];
      }
    }
  }
  stats.forEach((s, t) => {
    // Rounded to 6 decimals (the damped counts are not integers) so that the cache file stays small and
    // a model read back from it is the very model trained here.
    s.wordCounts = Array.from(counts[t], (x) => Math.round(x * 1e6) / 1e6);
  });
  return { vocab, stats };
}

function heldOutTemperatures(cfg: VersionConfig, specs: Spec[], rows: Row[], interner: Interner): number[] {
  if (cfg.temperature === "none") return specs.map(() => 1);
  const isHeldOut = (r: Row) => (r.hash >>> 1) % 5 === 0;
  const heldOut = rows.filter(isHeldOut);
  const { vocab, stats } = accumulate(
    specs,
    rows.filter((r) => !isHeldOut(r)),
    interner,
  );
  return specs.map(({ spec, item }, t) => {
    const model = compileTarget(stats[t], vocab, cfg.smoothing);
    const scores: Float64Array[] = [];
    const gold: number[] = [];
    for (const r of heldOut) {
      const c = spec.classOf(r.labels[item]);
      if (c < 0) continue;
      scores.push(logScores(model, r.features));
      gold.push(c);
    }
    return fitTemperature(scores, gold);
  });
}

/** Trains each version on each dataset's `train` split (features are extracted once and shared). */
export function trainVersions(
  configs: readonly VersionConfig[],
  datasets: LoadedDataset[],
): TrainedVersion[] {
  const out: TrainedVersion[] = configs.map((cfg) => ({ version: cfg.name, datasets: [] }));
  for (const ds of datasets) {
    const interner = new Interner();
    const rows: Row[] = ds.examples
      .filter((e) => e.split === "train")
      .map((e) => {
        const features = extractFeatures(e.state);
        return { features, words: interner.row(features.words, damp), labels: e.labels, hash: idHash(e.id) };
      });
    const specs: Spec[] = ds.task.items.flatMap((item) =>
      targetsOf(item).map((spec) => ({ spec, item: item.name })),
    );
    configs.forEach((cfg, v) => {
      const share = cfg.trainShare === "half" ? rows.filter((r) => r.hash % 2 === 0) : rows;
      const temperatures = heldOutTemperatures(cfg, specs, share, interner);
      const { vocab, stats } = accumulate(specs, share, interner);
      out[v].datasets.push({
        name: ds.task.name,
        vocab,
        targets: specs.map(({ spec }, t) => ({
          key: spec.key,
          label: spec.label,
          stats: stats[t],
          temperature: temperatures[t],
        })),
      });
    });
  }
  return out;
}
