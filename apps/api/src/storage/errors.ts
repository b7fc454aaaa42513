/** The errors both stores throw alike. */

/**
 * The rejection of an answer whose (run, example) is already stored: nothing of it was written or counted. A
 * queued worker that delivers an answer again takes it as "already done".
 */
export class AlreadyStored extends Error {
  readonly code = "ALREADY_STORED";
  constructor(
    readonly runId: string,
    readonly exampleId: string,
  ) {
    super(`example ${JSON.stringify(exampleId)} of run ${runId} is already stored`);
  }
}

/** The refusal of a database whose schema is newer than this code; `other` says where to point instead. */
export function newerSchema(current: number, latest: number, other: string): Error {
  return new Error(
    `the workbench database is at schema version ${current}, newer than this code knows (${latest}); ` +
      `use a newer workbench or ${other}`,
  );
}
