/** Debian's Chromium through playwright-core: how the end-to-end test and the benchmarks launch it. */
import { execFileSync } from "node:child_process";
import { type Browser, chromium } from "playwright-core";

/** Debian's chromium on PATH (never a downloaded browser), or an error that says how to install it. */
export function chromiumPath(): string {
  let path = "";
  try {
    path = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    // not found: reported below
  }
  if (!path) {
    throw new Error(
      "Debian's chromium is not on PATH: install it with `apt-get install -y chromium` (or bash scripts/ensure-tools.sh --browser)",
    );
  }
  return path;
}

/** Launches headless Chromium from PATH, with `extraArgs` after the usual flags. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...extraArgs,
    ],
  });
}
