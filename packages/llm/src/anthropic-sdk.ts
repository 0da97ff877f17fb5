// The Anthropic SDK, loaded when the first Anthropic provider is made. Through require(): its
// CommonJS build is the same code as its ES module build, and Node loads its ~300 files faster
// that way (about 15 ms of `harness run`'s start). Every SDK value this package uses comes from
// here, so error classes are never compared across the two builds.
import { createRequire } from "node:module";

type AnthropicSdk = typeof import("@anthropic-ai/sdk");

let sdk: AnthropicSdk | undefined;

export function anthropicSdk(): AnthropicSdk {
  sdk ??= createRequire(import.meta.url)("@anthropic-ai/sdk") as AnthropicSdk;
  return sdk;
}
