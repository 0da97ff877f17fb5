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
  RecordedRequest,
} from "./fake-anthropic-types.ts";
export { textInWords, toolThenText } from "./fake-anthropic-scenarios.ts";
export { startHarnessServer } from "./harness-process.ts";
export type { HarnessProcess } from "./harness-process.ts";
export { MinimalClient } from "./minimal-client.ts";
export type { ConnectOptions, MinimalFrame, MinimalState } from "./minimal-client.ts";
