// Benchmarks of the datasets package; each figure is a ratio against a baseline measured in the same run.
//   node --import tsx bench/datasets.ts
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Example } from "../src/index.js";
import { datasetHash, loadDataset, parseCsv, parseJsonl } from "../src/index.js";

function time<T>(f: () => T, repeat = 5): { ms: number; value: T } {
  let best = Number.POSITIVE_INFINITY;
  let value!: T;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    value = f();
    best = Math.min(best, performance.now() - t0);
  }
  return { ms: best, value };
}

const row = (name: string, ms: number, baseMs: number, base: string) =>
  console.log(
    `${name.padEnd(44)} ${ms.toFixed(1).padStart(9)} ms  = ${(ms / baseMs).toFixed(2).padStart(7)} x ${base}`,
  );

async function main(): Promise<void> {
  const t0 = performance.now();
  const spam = await loadDataset("spam-assassin");
  const cold = performance.now() - t0;
  const t1 = performance.now();
  await loadDataset("spam-assassin");
  const warm = performance.now() - t1;
  console.log(`spam-assassin: ${spam.examples.length} examples`);
  row("loadDataset, first call (reads ~44 MB)", cold, warm, "cached call");

  const jsonl = spam.examples.map((e: Example) => JSON.stringify(e)).join("\n");
  const bytes = Buffer.from(jsonl, "utf8");
  console.log(`JSONL export: ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, ${spam.examples.length} lines`);
  const base = time(() => jsonl.split("\n").map((l) => JSON.parse(l) as unknown));
  const parsedText = time(() => parseJsonl(jsonl, spam.task));
  const parsedBytes = time(() => parseJsonl(bytes, spam.task));
  if (!parsedText.value.ok || !parsedBytes.value.ok) throw new Error("the export should parse");
  row("parseJsonl (string)", parsedText.ms, base.ms, "split + JSON.parse");
  row("parseJsonl (bytes, with UTF-8 check)", parsedBytes.ms, base.ms, "split + JSON.parse");

  const broken = jsonl.replace(/"is_spam":"yes"/g, '"is_spam":"yse"');
  const failing = time(() => parseJsonl(broken, spam.task));
  if (failing.value.ok) throw new Error("the broken export should fail");
  row(`parseJsonl, ${failing.value.errorCount} errors located`, failing.ms, base.ms, "split + JSON.parse");

  const csvRows = ["id,state,is_spam,properties"];
  for (const e of spam.examples)
    csvRows.push(
      [
        e.id,
        `"${(e.state as string).replace(/"/g, '""')}"`,
        e.labels.is_spam,
        (e.labels.properties as string[]).join("|"),
      ].join(","),
    );
  const csv = csvRows.join("\n");
  const csvBase = time(() => csv.split("\n").map((l) => l.split(",")));
  const csvParsed = time(() => parseCsv(csv, spam.task));
  if (!csvParsed.value.ok) throw new Error(csvParsed.value.message);
  row(
    "parseCsv (RFC 4180, quoted multi-line states)",
    csvParsed.ms,
    csvBase.ms,
    "naive split on , and newline",
  );

  // Mapping states with integer-like keys: each line's state is written again in file order (stateJson).
  const lines = (k: (name: string) => string) =>
    Array.from(
      { length: 20_000 },
      (_, i) =>
        `{"id": "m${i}", "state": {"zeta": ${i}, ${k("2")}: "two", "alpha": "a0", ${k("10")}: {"b": 1, ${k("1")}: [2.5, "x"]}}, "labels": {"is_spam": "no"}}`,
    ).join("\n");
  const plainKeys = lines((n) => `"k${n}"`);
  const indexKeys = lines((n) => `"${n}"`); // one character shorter per key: the same work otherwise
  const plain = time(() => parseJsonl(plainKeys, spam.task));
  const ordered = time(() => parseJsonl(indexKeys, spam.task));
  if (!ordered.value.ok || !ordered.value.examples.every((e) => e.stateJson !== undefined))
    throw new Error("every state should keep its file order");
  row("parseJsonl, 20,000 states with integer-like keys", ordered.ms, plain.ms, "same without (keys k2...)");

  const hashBase = time(() => createHash("sha256").update(JSON.stringify(spam.examples)).digest("hex"));
  const hash = time(() => datasetHash(spam.task, spam.examples));
  row("datasetHash (canonical)", hash.ms, hashBase.ms, "sha256(JSON.stringify(examples))");
}

await main();
