/** How a long-running command (`serve`, `worker`) stops: on the first SIGINT or SIGTERM, once. */

/**
 * Resolves with the exit code once `close` has run after the first SIGINT or SIGTERM: 0, or 1 when it failed.
 * `saying`: what the command does on its way out, logged with the signal's name.
 */
export function untilSignal(
  close: () => Promise<void>,
  saying: string,
  log: (message: string) => void,
): Promise<number> {
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log(`${signal}: ${saying}`);
      close().then(
        () => resolve(0),
        (err) => {
          log(`shutdown failed: ${(err as Error).message}`);
          resolve(1);
        },
      );
    };
    process.once("SIGINT", () => stop("SIGINT"));
    process.once("SIGTERM", () => stop("SIGTERM"));
  });
}
