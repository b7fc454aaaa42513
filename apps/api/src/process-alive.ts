/** Whether a process of this machine is running: the owner of a run or of a pending upload. */

/** True when a process has `pid` (one this process may not signal counts: it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
