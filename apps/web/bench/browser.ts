/** Debian's Chromium through playwright-core, as the end-to-end test launches it. */
import { execFileSync } from "node:child_process";
import { type Browser, chromium } from "playwright-core";

/** Launches headless Chromium from PATH. */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  if (!executablePath) throw new Error("chromium is not on PATH: apt-get install -y chromium");
  return chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
