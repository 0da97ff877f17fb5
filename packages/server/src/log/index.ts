// The server's log, for `harness serve` to write its own lines as the server writes its: a module
// light enough to load before the server itself.
export { LOG_FORMATS, LOG_LEVELS, logSettings, stdoutIsFile } from "./settings.ts";
export type { LogFormat, LogLevel, LogSettings } from "./settings.ts";
export { logWriter } from "./writer.ts";
export type { LogDetail, ServerLog } from "./writer.ts";
