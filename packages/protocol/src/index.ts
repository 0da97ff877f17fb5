export * from "./wire.ts";
export { parseClientFrame, describeZodError, ErrorCodes } from "./frames.ts";
export { MAX_COMMANDS_PER_FRAME, MAX_FRAME_BYTES } from "./limits.ts";
export type { FrameError, ParsedFrame } from "./frames.ts";
export { applyOperations, OperationError } from "./operations.ts";
export * from "./runner.ts";
export * from "./runner-control.ts";
export { createTextQueue } from "./text-queue.ts";
export type { TextQueue } from "./text-queue.ts";
