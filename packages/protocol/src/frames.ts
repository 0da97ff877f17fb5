// Validation of client frames. A frame is parsed once; each command in it is validated on its own
// so that one bad command gets its own error (with its index) and the rest still run.
import { ClientMessageSchema, COMMAND_TYPES, HarnessCommandSchema, type HarnessCommand, type HarnessCommandType } from "./wire.ts";
import type { z } from "zod";

import { frameTooLarge, MAX_FRAME_BYTES } from "./limits.ts";

export type FrameError = { message: string; code: string; command?: number };
export type ParsedFrame = { commands: { index: number; command: HarnessCommand }[]; errors: FrameError[] };

/** Error codes carried in `error` frames. */
export const ErrorCodes = {
  badJson: "bad_json",
  badFrame: "bad_frame",
  badCommand: "bad_command",
  unknownCommand: "unknown_command",
  tooLarge: "frame_too_large",
  unsupported: "unsupported",
  busy: "busy",
  notFound: "not_found",
  internal: "internal",
} as const;

/** Each issue as "<path>: <message>"; an issue of the value as a whole is named `whole`. */
export function describeZodError(error: z.ZodError, whole = "frame"): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length ? issue.path.join(".") : whole;
      if (issue.code === "unrecognized_keys") {
        return `${where}: unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((key) => JSON.stringify(key)).join(", ")}`;
      }
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}

export function parseClientFrame(raw: string): ParsedFrame {
  if (frameTooLarge(raw)) {
    return { commands: [], errors: [{ code: ErrorCodes.tooLarge, message: `frame is larger than ${MAX_FRAME_BYTES} bytes` }] };
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    return { commands: [], errors: [{ code: ErrorCodes.badJson, message: `frame is not valid JSON: ${(err as Error).message}` }] };
  }
  const envelope = ClientMessageSchema.safeParse(json);
  if (!envelope.success) {
    return {
      commands: [],
      errors: [{ code: ErrorCodes.badFrame, message: `expected {"type":"commands","commands":[...]}: ${describeZodError(envelope.error)}` }],
    };
  }
  const out: ParsedFrame = { commands: [], errors: [] };
  envelope.data.commands.forEach((candidate, index) => {
    if (typeof candidate !== "object" || candidate === null || Array.isArray(candidate)) {
      const what = candidate === null ? "null" : Array.isArray(candidate) ? "an array" : `a ${typeof candidate}`;
      out.errors.push({ code: ErrorCodes.badCommand, command: index, message: `a command must be an object with a "type", not ${what}` });
      return;
    }
    const type = (candidate as { type?: unknown }).type;
    const parsed = HarnessCommandSchema.safeParse(candidate);
    if (parsed.success) {
      out.commands.push({ index, command: parsed.data });
    } else if (type === undefined) {
      out.errors.push({ code: ErrorCodes.badCommand, command: index, message: `a command needs a "type": one of ${COMMAND_TYPES.join(", ")}` });
    } else if (typeof type !== "string" || !COMMAND_TYPES.includes(type as HarnessCommandType)) {
      const shown = typeof type === "string" && type.length > 100 ? `${JSON.stringify(type.slice(0, 100))}…` : JSON.stringify(type);
      out.errors.push({
        code: ErrorCodes.unknownCommand,
        command: index,
        message: `unknown command type ${shown}: expected one of ${COMMAND_TYPES.join(", ")}`,
      });
    } else {
      out.errors.push({ code: ErrorCodes.badCommand, command: index, message: `${type}: ${describeZodError(parsed.error, "command")}` });
    }
  });
  return out;
}
