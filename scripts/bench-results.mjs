/**
 * Benches write their results. `recordResults(import.meta.url, title)` at the start of a bench keeps what the
 * bench prints on stdout and, when the process exits with code 0, adds it to the RESULTS.md beside the bench as
 * a dated section (newest first, after the file's introduction), with the command, Node's version and the load
 * average at the start and the end. BENCH_RESULTS=0 leaves the file alone (a trial run).
 */

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export function recordResults(benchUrl, title) {
  if (process.env.BENCH_RESULTS === "0") return;
  const bench = fileURLToPath(benchUrl);
  const file = join(dirname(bench), "RESULTS.md");
  const started = new Date();
  const loadAtStart = loadavg()[0];
  const printed = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    printed.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    return write(chunk, ...rest);
  };
  process.on("exit", (code) => {
    const text = printed.join("").trimEnd();
    if (code !== 0 || text === "") return;
    const args = process.argv.slice(2).join(" ");
    const command = `node --import tsx bench/${basename(bench)}${args ? ` ${args}` : ""}`;
    const when = started.toISOString().slice(0, 16).replace("T", " ");
    const load = `${loadAtStart.toFixed(1)} -> ${loadavg()[0].toFixed(1)}`;
    const section = `## ${when} UTC: ${title}\n\n\`${command}\`, Node ${process.version}, load average ${load}\n\n\`\`\`\n${text}\n\`\`\`\n\n`;
    const old = existsSync(file) ? readFileSync(file, "utf8") : "# Benchmark results\n\nNewest first.\n\n";
    const at = old.search(/^## /m);
    writeFileSync(
      file,
      at === -1 ? `${old.trimEnd()}\n\n${section}` : old.slice(0, at) + section + old.slice(at),
    );
  });
}
