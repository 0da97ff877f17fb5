// Failures of an OpenAI-compatible server in words: SDK errors and in-stream error payloads,
// classified by the shared retry policy.
import type { APIError } from "openai";
import { openAISdk } from "./sdk.ts";
import { errorKindOf } from "../retry/error-kind.ts";
import { certificateErrorIn } from "../net/certificate-error.ts";
import { shownURL } from "../net/shown-url.ts";
import { causeChain, clip, type Failure, foreignBody, rootCause, statusFailure } from "../retry/policy.ts";
import { failureHint } from "./hints.ts";

/** Error types that describe the request rather than the service: sending it again fails again. */
const FINAL_ERROR_TYPES: ReadonlySet<string> = new Set(["invalid_request_error", "authentication_error", "permission_error", "not_found_error"]);

/** A failure before the response body. `label` names the service ("OpenAI", "Ollama", …); `model`
 * is the model asked for. */
export function openAIRequestFailure(error: unknown, label: string, baseURL: string, model: string): Failure {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = openAISdk();
  if (error instanceof APIConnectionTimeoutError) {
    return { description: `the request to the ${label} API at ${shownURL(baseURL)} timed out`, retryable: true };
  }
  const certificate = certificateErrorIn(error);
  if (certificate) return { description: `could not connect to the ${label} API at ${shownURL(baseURL)}: ${certificate.message}`, retryable: false };
  if (error instanceof APIConnectionError) {
    return { description: `could not connect to the ${label} API at ${shownURL(baseURL)}: ${rootCause(error)}`, retryable: true };
  }
  if (error instanceof APIError && error.status !== undefined) {
    const kind = error.code || error.type ? ` (${errorKind(error)})` : "";
    const failure = statusFailure(`${label} API error ${error.status}${kind}: ${apiMessage(error)}${hintFor(error, error.status, model)}`, error.status, error.headers, error.code || error.type);
    // A 429 for an exhausted quota stays one until someone pays: trying again cannot help.
    if (error.code === "insufficient_quota") failure.retryable = false;
    return failure;
  }
  return openAIStreamFailure(error, label, model, false);
}

/** A failure while reading the body: an error payload in the stream, or the connection breaking. */
export function openAIStreamFailure(error: unknown, label: string, model: string, retryable = true): Failure {
  const { APIConnectionError, APIError } = openAISdk();
  if (error instanceof APIError && error.status === undefined && !(error instanceof APIConnectionError) && error.error !== undefined) {
    // OpenRouter puts the HTTP status its upstream answered as the code: it decides as a status would.
    const status = (error.error as { code?: unknown }).code;
    if (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599) {
      return statusFailure(`${label} API stream error (${status}): ${apiMessage(error)}${hintFor(error, status, model)}`, status, undefined);
    }
    return {
      description: `${label} API stream error (${errorKind(error)}): ${apiMessage(error)}${hintFor(error, 400, model)}`,
      retryable: !FINAL_ERROR_TYPES.has(error.type ?? ""),
      kind: errorKindOf(undefined, error.code || error.type),
      code: errorKind(error),
    };
  }
  return { description: causeChain(error), retryable };
}

/** " — what to do", for the failures whose message leaves it unsaid, else "". */
function hintFor(error: APIError, status: number, model: string): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === "string" ? body.message : error.message;
  const hint = failureHint(status, `${message} ${error.code ?? ""} ${error.type ?? ""}`, model);
  return hint ? ` — ${hint}` : "";
}

/** The error body's code ("rate_limit_exceeded"), else its type ("server_error"). */
function errorKind(error: APIError): string {
  return error.code || error.type || "unknown_error";
}

/** The server's own message, without the status the SDK puts in front of it; a proxy's page by
 * its title. */
function apiMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === "string" && body.message) return clip(body.message);
  return error.status === undefined ? clip(error.message) : foreignBody(error.message, error.status);
}
