export { startFakeAnthropic } from "./fake-anthropic.ts";
export type {
  FakeAnthropic,
  FakeAnthropicOptions,
  FakeHttpErrorReply,
  FakeMessageReply,
  FakeReply,
  FakeStreamErrorReply,
  FakeToolUse,
  FakeUsage,
  FakeWebSearch,
  FakeWebSearchResult,
  FakeCitation,
  RecordedRequest,
} from "./fake-anthropic-types.ts";
export { claudeCodeRoute, textInWords, toolThenText, webSearchAnswer } from "./fake-anthropic-scenarios.ts";
export type { WebSearchAnswer } from "./fake-anthropic-scenarios.ts";
export { chunkFrame, eventStreamFrame, exceptionFrame, FAKE_AWS_KEYS, FAKE_BEDROCK_API_KEY } from "./fake-bedrock-wire.ts";
export type { FakeAwsKeys } from "./fake-bedrock-wire.ts";
export { startFakeAwsAuth } from "./fake-aws-auth.ts";
export type { FakeAwsAuth, FakeAwsAuthOptions, FakeAwsAuthRequest } from "./fake-aws-auth.ts";
export { FAKE_REFRESH_TOKEN, startFakeGoogleToken } from "./fake-google-token.ts";
export type { FakeGoogleToken, FakeGoogleTokenRequest } from "./fake-google-token.ts";
export { startFakeGoogleCloud } from "./fake-google-cloud.ts";
export type { FakeGoogleCloud, FakeGoogleCloudRequest } from "./fake-google-cloud.ts";
export { startFakeOpenAI } from "./fake-openai.ts";
export type {
  FakeOpenAI,
  FakeOpenAIHttpErrorReply,
  FakeOpenAIMessageReply,
  FakeOpenAIOptions,
  FakeOpenAIQuirks,
  FakeOpenAIReply,
  FakeOpenAIStreamBreakReply,
  FakeOpenAIStreamErrorReply,
  FakeOpenAIToolCall,
  FakeOpenAIUsage,
} from "./fake-openai-types.ts";
export { SERVER_GC_FLAGS, startHarnessServer } from "./harness-process.ts";
export type { HarnessProcess } from "./harness-process.ts";
export { MinimalClient, steerQueued } from "./minimal-client.ts";
export type { ConnectOptions, MinimalFrame, MinimalState } from "./minimal-client.ts";
export { mcpTestServerCommand } from "./mcp-test-command.ts";
export { mcpRawServerCommand } from "./mcp-raw-command.ts";
export type { McpRawServerScript } from "./mcp-raw-command.ts";
export { startMcpTestHttpServer } from "./mcp-test-http.ts";
export type { McpTestHttpOptions, McpTestHttpServer } from "./mcp-test-http.ts";
export { startFakeOAuthServer } from "./fake-oauth.ts";
export type { FakeOAuthServer } from "./fake-oauth.ts";
export { dummyToolTopic, TEST_PNG_BASE64, TEST_README } from "./mcp-test-tools.ts";
export type { McpTestServerOptions, McpTestServerState } from "./mcp-test-tools.ts";
export { eventually, killQuietly, processAlive, waitFor } from "./wait.ts";
export type { WaitOptions } from "./wait.ts";
export { startTcpProxy } from "./tcp-proxy.ts";
export type { TcpProxy } from "./tcp-proxy.ts";
export { holdLock } from "./sqlite-lock-holder.ts";
export { storedRunnerPid, storedSeq } from "./harness-db.ts";
export { startHttpProxy } from "./http-proxy.ts";
export type { HttpProxy, ProxiedRequest } from "./http-proxy.ts";
export { rawHttp } from "./raw-http.ts";
export {
  startFakeAnthropicTls,
  startTlsFront,
  TEST_CA_FILE,
  TEST_CLIENT_CERT_FILE,
  TEST_CLIENT_KEY_ENCRYPTED_FILE,
  TEST_CLIENT_KEY_FILE,
  TEST_CLIENT_KEY_PASSPHRASE,
} from "./fake-tls.ts";
export type { TlsFront, TlsFrontOptions } from "./fake-tls.ts";
export { findChromium, startChromium } from "./chromium.ts";
export type { Chromium, ChromiumPage } from "./chromium.ts";
export { SECRET_MCP_ARGS, SECRET_PROCESS_ENV, SECRET_SETTINGS_ENV, secretMcpServers } from "./secret-mcp-servers.ts";
export { startFakeOtlpCollector } from "./fake-otlp-collector.ts";
export type { FakeOtlpCollector, OtlpReply, OtlpRequest } from "./fake-otlp-collector.ts";
export { attributeMap, decodeLogsRequest, decodeMetricsRequest, decodeTracesRequest, eventRecordsOf, metricPointsOf, protobufFields, spanRecordsOf } from "./otlp-decode.ts";
export type { EventRecord, MetricPoint, OtlpLogsJson, OtlpMetricsJson, OtlpTracesJson, SpanRecord } from "./otlp-decode.ts";
export { freePort } from "./free-port.ts";
export { fakeLspServerCommand } from "./fake-lsp-command.ts";
export type { FakeLspOptions } from "./fake-lsp-command.ts";
