/** The message of a fit given nothing usable (only escalated rows, or no rows). */
export const NOTHING_LEARNED = "the model gave no usable output and nothing was learned";

/** Thrown by every fit given nothing usable; its message is exactly NOTHING_LEARNED. */
export class NothingLearnedError extends Error {
  readonly code = "NOTHING_LEARNED";
  constructor() {
    super(NOTHING_LEARNED);
    this.name = "NothingLearnedError";
  }
}
