// Tools a program registered for a session (the Open Harness API's tools.register): each offered to
// the model of the session's runs like any tool, its calls POSTed to the program's endpoint.
import { z } from "zod";

/** The most tools a session may have registered. */
export const MAX_REGISTERED_TOOLS = 50;
/** The largest input schema of one, as JSON. */
export const MAX_REGISTERED_SCHEMA_BYTES = 64 * 1024;
/** The longest description of one. */
export const MAX_REGISTERED_DESCRIPTION_CHARS = 1000;

/** A registered tool's name: what the model calls it and permission rules name it by. Letters,
 * digits, `_` and `-`, starting with a letter, as the model APIs take tool names; never `mcp__…`,
 * which names an MCP server's tools. */
export const RegisteredToolName = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, "must be 1 to 64 letters, digits, _ and -, starting with a letter")
  .refine((name) => !name.toLowerCase().startsWith("mcp__"), "must not start with mcp__ (the names of MCP servers' tools)");

export const RegisteredToolSchema = z.strictObject({
  name: RegisteredToolName,
  description: z.string().min(1).max(MAX_REGISTERED_DESCRIPTION_CHARS),
  /** A JSON Schema of `type: "object"`, as the model is given it. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** Where each call's input is POSTed (http or https). */
  url: z.url({ protocol: /^https?$/ }),
});
export type RegisteredTool = z.infer<typeof RegisteredToolSchema>;

export const RegisteredToolsSchema = z.array(RegisteredToolSchema).max(MAX_REGISTERED_TOOLS);
