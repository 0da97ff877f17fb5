// Structured output (Claude Code's --json-schema): the run's answer is JSON matching a schema. The
// model is given a StructuredOutput tool whose input is that schema; a call whose input does not
// match is answered with what is wrong, and a reply that ends the run without a matching call is
// sent back with a reminder, a few times at most.
import { createRequire } from "node:module";
import type { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import type { Tool } from "../types.ts";

export const STRUCTURED_OUTPUT_TOOL_NAME = "StructuredOutput";

/** Answers that miss the schema (a call that does not match, or a reply without the call) a run
 * sends back before it gives up. */
export const MAX_STRUCTURED_OUTPUT_RETRIES = 5;

const REMINDER = `You have not given your final answer yet: call the ${STRUCTURED_OUTPUT_TOOL_NAME} tool now with it, as input that matches the tool's schema.`;

let made: AjvJsonSchemaValidator | undefined;
/** Loaded and made when first needed: most runs have no output schema, and the validator (ajv) is
 * about a hundred files, which every `harness run` would otherwise load before its first request. */
function validator(): AjvJsonSchemaValidator {
  if (!made) {
    const ajv = createRequire(import.meta.url)("@modelcontextprotocol/sdk/validation/ajv") as typeof import("@modelcontextprotocol/sdk/validation/ajv");
    made = new ajv.AjvJsonSchemaValidator();
  }
  return made;
}

/** Why `schema` cannot be a run's output schema, in one line, or undefined. */
export function outputSchemaProblem(schema: unknown): string | undefined {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "must be a JSON Schema object";
  const meta = validator().getValidator<unknown>({ $ref: "http://json-schema.org/draft-07/schema#" })(schema);
  if (!meta.valid) return `is not a valid JSON Schema: ${meta.errorMessage.replace(/\bdata\b/g, "schema")}`;
  try {
    validator().getValidator(schema as Record<string, unknown>);
  } catch (error) {
    return `is not a valid JSON Schema: ${(error as Error).message}`;
  }
  // The answer is a tool's input, and a tool's input is an object.
  if ((schema as { type?: unknown }).type !== "object") return 'must describe an object ("type": "object"): the answer is given as a tool\'s input';
  return undefined;
}

/** What a run with an output schema keeps: the tool, the answer once given, and the misses. */
export type StructuredOutput = {
  tool: Tool;
  /** The matching answer, once the model has given one. */
  answer?: { value: Record<string, unknown> };
  misses: number;
  /** A reminder to send back when the model ended without the answer; undefined once it has
   * missed too often. */
  remind(): string | undefined;
  exhausted(): boolean;
};

/** The StructuredOutput tool for `schema` (checked with outputSchemaProblem). */
export function structuredOutput(schema: Record<string, unknown>): StructuredOutput {
  const check = validator().getValidator<Record<string, unknown>>(schema);
  const state: StructuredOutput = {
    misses: 0,
    tool: {
      name: STRUCTURED_OUTPUT_TOOL_NAME,
      description: "Give your final answer with this tool, once, when the task is done: its input is the answer, and must match the tool's schema exactly. Call it before you end your turn.",
      // Checked against the schema itself in execute, so that a miss says what is wrong.
      parameters: z.record(z.string(), z.unknown()),
      inputSchema: schema,
      readOnly: true,
      async execute(args) {
        const checked = check(args);
        if (!checked.valid) {
          state.misses++;
          return { content: `The answer does not match the schema: ${checked.errorMessage.replace(/\bdata\b/g, "input")}. Call ${STRUCTURED_OUTPUT_TOOL_NAME} again with input that matches it.`, isError: true };
        }
        state.answer = { value: checked.data };
        return { content: "The answer was received." };
      },
    },
    remind() {
      state.misses++;
      return state.exhausted() ? undefined : REMINDER;
    },
    exhausted: () => state.misses > MAX_STRUCTURED_OUTPUT_RETRIES,
  };
  return state;
}

export function structuredOutputFailure(): string {
  return `The model did not give an answer that matches the output schema after ${MAX_STRUCTURED_OUTPUT_RETRIES} retries.`;
}
