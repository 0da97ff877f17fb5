// The OpenAI SDK, loaded when the first OpenAI-compatible provider is made: runs on Anthropic
// models never load it. From its bundle, like the Anthropic SDK (see anthropic/sdk.ts); every SDK
// value this package uses comes from here.
import { requireBundled } from "../bundled-require.ts";

type OpenAISdk = typeof import("openai");

let sdk: OpenAISdk | undefined;

export function openAISdk(): OpenAISdk {
  sdk ??= requireBundled("openai", import.meta.url) as OpenAISdk;
  return sdk;
}
