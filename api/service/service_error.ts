// The service's error reply, in a file of its own: the sessions and the
// machine sessions (api/service/_machine_session.ts) both throw it, and
// neither imports the other for it.

import { EvtsimError } from "../../core/errors.ts";

/** An error reply: the HTTP status, a machine-readable kind and one line. */
export class ServiceError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 429 | 500 | 503,
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** The HTTP status of an `EvtsimError` kind: bad arguments 400, refused by the state 409. */
export function serviceError(e: unknown): ServiceError {
  if (e instanceof ServiceError) return e;
  if (e instanceof EvtsimError) {
    const status = e.kind === "usage" || e.kind === "input" ? 400 : 409;
    return new ServiceError(status, e.kind, e.message);
  }
  throw e;
}
