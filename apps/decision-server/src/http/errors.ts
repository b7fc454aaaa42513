/** An HTTP error answered as `{"detail": detail}` with its status. */
export class HttpError extends Error {
  readonly status: number;
  readonly detail: string;
  constructor(status: number, detail: string) {
    super(detail);
    this.name = "HttpError";
    this.status = status;
    this.detail = detail;
  }
}

/** A 422 validation error with a message that says what is wrong and what would be right. */
export function invalid(detail: string): HttpError {
  return new HttpError(422, detail);
}
