import { z } from "zod";
import type { Tool, ToolContext, ToolOutput, ToolRefusals } from "./types.ts";

export type ToolDefinition<S extends z.ZodType> = {
  name: string;
  description: string;
  parameters: S;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
  /** See Tool.readOnly. */
  readOnly?: boolean;
  /** See Tool.refusals. */
  refusals?: ToolRefusals;
  /** See Tool.precheck. */
  precheck?(args: z.infer<S>, ctx: ToolContext): Promise<string | undefined>;
};

/** JSON Schemas derived so far, by zod schema: tools made again for every run (Task, Skill) reuse
 * theirs, as deriving one costs a fraction of a millisecond. */
const derived = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(parameters: z.ZodType): Record<string, unknown> {
  let schema = derived.get(parameters);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(parameters, { io: "input" }) as Record<string, unknown>;
    schema = rest;
    derived.set(parameters, schema);
  }
  return schema;
}

/** Builds a Tool from a zod schema and a function. The JSON Schema for the model is derived here
 * (once per schema); arguments are validated by the loop before `execute` runs. The schema object
 * is shared by the tools made from the same zod schema: nobody may modify it. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): Tool {
  const inputSchema = jsonSchemaOf(def.parameters);
  return {
    name: def.name,
    description: def.description,
    parameters: def.parameters,
    inputSchema,
    execute: (args, ctx) => def.execute(args as z.infer<S>, ctx),
    ...(def.readOnly === true && { readOnly: true }),
    ...(def.refusals && { refusals: def.refusals }),
    ...(def.precheck && { precheck: (args: unknown, ctx: ToolContext) => def.precheck!(args as z.infer<S>, ctx) }),
  };
}
