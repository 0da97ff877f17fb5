import { z } from "zod";
import type { Tool, ToolContext, ToolOutput } from "./types.ts";

export type ToolDefinition<S extends z.ZodType> = {
  name: string;
  description: string;
  parameters: S;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
};

/** Builds a Tool from a zod schema and a function. The JSON Schema for the model is derived once
 * here; arguments are validated by the loop before `execute` runs. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool {
  const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(def.parameters, { io: "input" }) as Record<string, unknown>;
  return {
    name: def.name,
    description: def.description,
    parameters: def.parameters,
    inputSchema,
    execute: (args, ctx) => def.execute(args as z.infer<S>, ctx),
  };
}
