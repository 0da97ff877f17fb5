// The Anthropic SDK, loaded when the first Anthropic provider is made. Through require(): its
// CommonJS build is the same code as its ES module build, and it loads from one bundled file (see
// bundled-require.ts). Every SDK value this package uses comes from here, so error classes are
// never compared across two copies of the SDK.
import { requireBundled } from "../bundled-require.ts";

type AnthropicSdk = typeof import("@anthropic-ai/sdk");

let sdk: AnthropicSdk | undefined;

export function anthropicSdk(): AnthropicSdk {
  sdk ??= requireBundled("@anthropic-ai/sdk", import.meta.url) as AnthropicSdk;
  return sdk;
}
