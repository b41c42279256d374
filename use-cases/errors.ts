/**
 * The one error type routes throw. The error handler turns it into the spec's body
 * `{ error, detail?, code }`, where `code` is stable and machine-readable.
 */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly detail: string | undefined;

  constructor(statusCode: number, code: string, message: string, detail?: string) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.detail = detail;
  }
}

export const badRequest = (message: string, detail?: string) => new ApiError(400, 'invalid_request', message, detail);
export const unauthorized = (message: string, detail?: string) => new ApiError(401, 'unauthorized', message, detail);
export const forbidden = (message: string, detail?: string) => new ApiError(403, 'forbidden', message, detail);
export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} not found`);
export const conflict = (message: string, detail?: string) => new ApiError(409, 'conflict', message, detail);
export const unprocessable = (code: string, message: string, detail?: string) =>
  new ApiError(422, code, message, detail);

/** What a 503 tells the client to wait before retrying (a dependency down: PostgreSQL, Temporal, the gateway). */
export const RETRY_AFTER_SECONDS = 5;

export const serviceUnavailable = (code: string, message: string, detail?: string) =>
  new ApiError(503, code, message, detail);

export interface ErrorBody {
  error: string;
  detail?: string;
  code: string;
}
