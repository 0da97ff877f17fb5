// The Open Harness API's ErrorResponse: every failure under /v1 answers in this one shape, with a
// code a program can branch on and a message a person can act on.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorResponse = {
  error: { code: string; message: string; domain?: string; operation?: string; details?: Record<string, unknown> };
};

/** A failure to answer as an ErrorResponse; `operation` is the spec's capability id, when known. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly operation: string | undefined;
  constructor(status: ContentfulStatusCode, code: string, message: string, operation?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.operation = operation;
  }
}

/** The code of an answer that names none, by its status. */
export function codeOfStatus(status: number): string {
  const codes: Record<number, string> = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    501: "not_implemented",
    503: "unavailable",
  };
  return codes[status] ?? "internal_error";
}

export function errorBody(code: string, message: string, operation?: string): ErrorResponse {
  const domain = operation?.split(".")[0];
  return { error: { code, message, ...(domain !== undefined && { domain }), ...(operation !== undefined && { operation }) } };
}

export function answerError(c: Context, error: ApiError): Response {
  return c.json(errorBody(error.code, error.message, error.operation), error.status);
}

/** Whether a request is the Open Harness API's (its refusals take the ErrorResponse shape). */
export function isOpenHarnessPath(pathname: string): boolean {
  return pathname === "/v1" || pathname.startsWith("/v1/");
}
