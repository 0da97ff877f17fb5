// What kind of failure ended a model request, in the classes Claude Code's StopFailure hooks match on.
export type ModelErrorKind = "rate_limit" | "authentication_failed" | "billing_error" | "invalid_request" | "model_not_found" | "server_error" | "unknown";

/** Error types (Anthropic's, and OpenAI's codes and types) and the kind each stands for. */
const KIND_OF_TYPE: Readonly<Record<string, ModelErrorKind>> = {
  rate_limit_error: "rate_limit",
  rate_limit_exceeded: "rate_limit",
  authentication_error: "authentication_failed",
  permission_error: "authentication_failed",
  invalid_api_key: "authentication_failed",
  billing_error: "billing_error",
  insufficient_quota: "billing_error",
  invalid_request_error: "invalid_request",
  request_too_large: "invalid_request",
  not_found_error: "model_not_found",
  model_not_found: "model_not_found",
  overloaded_error: "server_error",
  api_error: "server_error",
  server_error: "server_error",
};

/** The kind of a failure from its HTTP status and its error type, the type winning when it is
 * known (a 429 for an exhausted quota is a billing matter, not a rate limit). */
export function errorKindOf(status: number | undefined, type?: string | null): ModelErrorKind {
  const byType = type ? KIND_OF_TYPE[type] : undefined;
  if (byType) return byType;
  if (status === undefined) return "unknown";
  if (status === 429) return "rate_limit";
  if (status === 401 || status === 403) return "authentication_failed";
  if (status === 402) return "billing_error";
  if (status === 404) return "model_not_found";
  if (status === 400 || status === 413 || status === 422) return "invalid_request";
  if (status >= 500) return "server_error";
  return "unknown";
}
