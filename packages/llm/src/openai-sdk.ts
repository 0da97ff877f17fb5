// The OpenAI SDK, loaded when the first OpenAI-compatible provider is made: runs on Anthropic
// models never load it. Through require(), like the Anthropic SDK (see anthropic-sdk.ts); every SDK
// value this package uses comes from here.
import { createRequire } from "node:module";

type OpenAISdk = typeof import("openai");

let sdk: OpenAISdk | undefined;

export function openAISdk(): OpenAISdk {
  sdk ??= createRequire(import.meta.url)("openai") as OpenAISdk;
  return sdk;
}
