/** Bad input to the scorer: the message says what is wrong and what would be right. */
export class ValueError extends Error {
  override name = "ValueError";
}

/** Base class of errors raised by remote clients (shared with other remote deciders). */
export class RemoteClientError extends Error {
  override name = "RemoteClientError";
}

/** A wrong key, model or URL (HTTP 401, 403, 404, other 4xx): raised, never escalated. Never carries the key. */
export class ServiceError extends RemoteClientError {
  override name = "ServiceError";
  constructor(
    message: string,
    /** The HTTP status the service answered. */
    readonly status: number,
    /** The endpoint, without credentials or query. */
    readonly endpoint: string,
    /** The reply's request id, when it sent one (also quoted in the message). */
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** A request that failed in a way that escalates the decision (retries exhausted, refused, invalid output). */
export class EscalationError extends Error {
  override name = "EscalationError";
  constructor(
    /** The escalation reason, exactly as decisions carry it. */
    readonly reason: string,
    /** The request id of the reply that escalated it, when there was one (also quoted in the reason). */
    readonly requestId?: string,
  ) {
    super(reason);
  }
}

/** Thrown by learning calls given the placeholder output of a request that did not answer. */
export const NOTHING_LEARNED = "the model gave no usable output and nothing was learned";
