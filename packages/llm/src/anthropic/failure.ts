// Anthropic's failures in words: SDK errors and stream error events, classified by the shared policy.
import { anthropicSdk } from "./sdk.ts";
import { MISSING_ANTHROPIC_KEY } from "../model-prefix.ts";
import { errorKindOf } from "../retry/error-kind.ts";
import { AwsCredentialsError } from "../aws/credentials.ts";
import { GoogleAuthError } from "../google/token.ts";
import { certificateErrorIn } from "../net/certificate-error.ts";
import { shownURL } from "../net/shown-url.ts";
import { causeChain, clip, type Failure, foreignBody, rootCause, serviceNamed, statusFailure } from "../retry/policy.ts";

/** Error event types that describe the request rather than the service: sending it again fails again. */
const FINAL_ERROR_TYPES: ReadonlySet<string> = new Set([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
]);

/** Who serves Claude, as failures name it: "Anthropic API", "Vertex AI", "Amazon Bedrock". */
export type ClaudeService = "Anthropic API" | "Vertex AI" | "Amazon Bedrock";

/** A failure before the response body: HTTP error statuses, connection errors, client setup errors. */
export function requestFailure(error: unknown, baseURL: string, service: ClaudeService = "Anthropic API"): Failure {
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = anthropicSdk();
  // On Vertex AI and Bedrock, the credentials the request could not get (the SDK reports them as
  // its fetch's failure).
  const credentials = (error as { cause?: unknown } | undefined)?.cause;
  if (credentials instanceof GoogleAuthError || credentials instanceof AwsCredentialsError) {
    return { description: credentials.message, retryable: credentials.retryable, ...(!credentials.retryable && { kind: "authentication_failed" as const }) };
  }
  if (error instanceof APIConnectionTimeoutError) {
    return { description: `the request to ${serviceNamed(service)} at ${shownURL(baseURL)} timed out`, retryable: true };
  }
  const certificate = certificateErrorIn(error);
  if (certificate) return { description: `could not connect to ${serviceNamed(service)} at ${shownURL(baseURL)}: ${certificate.message}`, retryable: false };
  if (error instanceof APIConnectionError) {
    return { description: `could not connect to ${serviceNamed(service)} at ${shownURL(baseURL)}: ${rootCause(error)}`, retryable: true };
  }
  // The SDK found no credentials: say which variable to set, not the SDK's list of its options.
  if (error instanceof Error && error.message.startsWith("Could not resolve authentication method")) {
    return { description: MISSING_ANTHROPIC_KEY, retryable: false, kind: "authentication_failed" };
  }
  if (error instanceof APIError && error.status !== undefined) {
    const what = error.apiMessage ? clip(error.apiMessage) : foreignBody(error.message, error.status);
    const description = `${service} error ${error.status}${error.type ? ` (${error.type})` : ""}: ${what}`;
    const failure = statusFailure(description, error.status, error.headers, error.type);
    // The API says an empty credit balance with a 400 invalid_request_error.
    if (/credit balance/i.test(error.apiMessage ?? "")) failure.kind = "billing_error";
    return failure;
  }
  return streamFailure(error, false, service);
}

/** A failure while reading the response body: an `error` event, or the connection breaking. */
export function streamFailure(error: unknown, retryable = true, service: ClaudeService = "Anthropic API"): Failure {
  const { APIError } = anthropicSdk();
  if (error instanceof APIError && error.status === undefined && error.type !== null) {
    return {
      description: `${service} stream error (${error.type}): ${clip(error.apiMessage ?? error.message)}`,
      retryable: !FINAL_ERROR_TYPES.has(error.type),
      kind: errorKindOf(undefined, error.type),
      code: error.type,
    };
  }
  return { description: causeChain(error), retryable };
}
