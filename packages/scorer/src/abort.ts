import { ValueError } from "./errors.js";

/** Cancelling a call: an aborted call neither escalates nor caches; it rejects with an AbortError. */

/** What an aborted call rejects with (`name` is "AbortError", as fetch and undici use). */
export class AbortError extends Error {
  override name = "AbortError";
  constructor(message = "the call was aborted", options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The AbortError of an aborted signal: its reason when that already is one, else a new one citing it. */
export function abortErrorOf(signal: AbortSignal): AbortError {
  const reason: unknown = signal.reason;
  if (reason instanceof AbortError) return reason;
  const said = reason instanceof Error ? `: ${reason.message}` : "";
  return new AbortError(`the call was aborted${said}`, { cause: reason });
}

/** Rejects with the AbortError when the signal is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortErrorOf(signal);
}

/** `promise`, or the AbortError as soon as `signal` aborts (the promise itself runs on, its outcome ignored). */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortErrorOf(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortErrorOf(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Checks a per-call signal option. */
export function checkSignal(signal: unknown, where: string): AbortSignal | undefined {
  if (signal === undefined || signal === null) return undefined;
  if (!(signal instanceof AbortSignal)) {
    throw new ValueError(`${where}: signal must be an AbortSignal (from an AbortController)`);
  }
  return signal;
}
