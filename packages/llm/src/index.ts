export type {
  CacheControl,
  ContentBlock,
  DocumentBlock,
  Effort,
  ImageBlock,
  ModelErrorInfo,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  Provider,
  RedactedThinkingBlock,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolSchema,
  ToolUseBlock,
  ServerToolUseBlock,
  WebSearchCitation,
  WebSearchResultItem,
  WebSearchTool,
  WebSearchToolResultBlock,
  WebSearchToolResultError,
} from "./types.ts";
export { createAnthropicProvider } from "./anthropic/provider.ts";
export type { AnthropicProviderOptions } from "./anthropic/provider.ts";
export { createOpenAIProvider, OPENAI_DEFAULT_BASE_URL } from "./openai/provider.ts";
export type { OpenAIProviderOptions } from "./openai/provider.ts";
export { createProviderForModel, MODEL_PREFIXES, OLLAMA_DEFAULT_BASE_URL, routeModel } from "./route-model.ts";
export type { ModelPrefix, ModelRoute, ProviderOverrides, RoutedModel } from "./route-model.ts";
export { baseUrlProblems, BASE_URL_VARIABLES } from "./net/base-urls.ts";
export { customHeadersProblems } from "./anthropic/custom-headers.ts";
export { fetchFor } from "./net/http-fetch.ts";
export type { HttpFetch } from "./net/http-fetch.ts";
export { networkProblem } from "./net/proxy-env.ts";
export { credentialsFile, VERTEX_DEFAULT_REGION, vertexEnabled, vertexProblems, vertexSettings } from "./vertex/settings.ts";
export type { VertexSettings } from "./vertex/settings.ts";
export { awsFiles, bedrockEnabled, bedrockProblems, bedrockSettings } from "./bedrock/settings.ts";
export type { BedrockSettings } from "./bedrock/settings.ts";
export { AwsCredentialsError, bedrockAuth, refreshBedrockAuth } from "./aws/credentials.ts";
export type { AwsCommands, BedrockAuth } from "./aws/credentials.ts";
export { GoogleAuthError, googleAccessToken } from "./google/token.ts";
export { costUsd, priceOf, pricedCall } from "./cost.ts";
export { formatDuration } from "./retry/policy.ts";
export type { ModelPrice } from "./cost.ts";
export { EFFORT_THINKING_BUDGET, thinkingBudget } from "./thinking.ts";
export { defaultModel, DEFAULT_MAX_TOKENS, DEFAULT_MODEL, resolveRetrySettings } from "./settings.ts";
export type { EnvLike } from "./settings.ts";
export { hasAnthropicCredentials, MISSING_ANTHROPIC_KEY, servedByAnthropic } from "./model-prefix.ts";
export { isBlankText } from "./blank-text.ts";
export type { ModelErrorKind } from "./retry/error-kind.ts";
