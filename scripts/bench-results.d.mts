/** Keeps what the bench prints and adds it to the bench folder's RESULTS.md as a dated section on exit 0. */
export function recordResults(benchUrl: string, title: string): void;
