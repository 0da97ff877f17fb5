// What a client needs at run time, without zod: browser bundles that import this (rather than the
// package's main entry, which holds every schema) stay a few kilobytes. Types come from the main
// entry with `import type`, which costs nothing.
export { applyOperations, OperationError } from "./operations.ts";
export { frameTooLarge, MAX_COMMANDS_PER_FRAME, MAX_FRAME_BYTES } from "./limits.ts";
export { bashModeCommand, bashModePrompt } from "./bash-mode.ts";
export { STREAM_CUT_NOTE, streamCutNote } from "./streamed-output.ts";
export { idProblem, ID_PATTERN, ID_RULE, DOT_ID_RULE } from "./ids.ts";
export { leftCloseReason } from "./session-end.ts";
export { TOKEN_REFUSED_CLOSE } from "./close-codes.ts";
export { changeCounts, diffLines, hunks, splitLines, type DiffLine } from "./line-diff.ts";
export { shellRuntime, shellStatusText } from "./shells-text.ts";
export { noticesAdded } from "./notices.ts";
export { leadingText } from "./leading-text.ts";
