export { runCli } from "./cli.ts";
export type { CliIO } from "./cli.ts";
export { parseArgs, parsePort } from "./args.ts";
export type { Command, Topic } from "./args.ts";
export { createRenderer, describeToolCall, excerptOutput } from "./display/render.ts";
export type { Renderer, RendererOptions, Sink } from "./display/render.ts";
