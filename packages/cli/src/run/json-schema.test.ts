// `harness run --json-schema '<schema>'`: the run's answer as JSON that matches the schema, in the
// result's `structured_output`, as Claude Code gives it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const SCHEMA = { type: "object", properties: { name: { type: "string" }, stars: { type: "integer", minimum: 0 } }, required: ["name", "stars"], additionalProperties: false };
const call = (input: Record<string, unknown>) => ({ toolUses: [{ name: "StructuredOutput", input }] });

test("--json-schema: the model gives its answer through a tool checked against the schema; the result has it as structured_output", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ text: "It is harness with 3 stars." }, call({ name: "harness", stars: "three" }), call({ name: "harness", stars: 3 }), { text: "Done." }] }),
  );
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "json", "--json-schema", JSON.stringify(SCHEMA), "describe the repo"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 0, stderr);
  const result = JSON.parse(stdout);
  assert.equal(result.subtype, "success");
  assert.deepEqual(result.structured_output, { name: "harness", stars: 3 });
  const tool = (fake.requests[0]!.body.tools as { name: string; input_schema: unknown }[]).find((tool) => tool.name === "StructuredOutput");
  assert.deepEqual(tool?.input_schema, SCHEMA, "the model is offered the schema as the tool's input");
  assert.match(JSON.stringify(fake.requests[1]!.body.messages), /StructuredOutput/, "an answer without the tool is sent back with a reminder");
  const third = JSON.stringify((fake.requests[2]!.body.messages as unknown[]).at(-1));
  assert.match(third, /is_error/);
  assert.match(third, /stars/, "input that does not match goes back to the model saying what is wrong");
});

test("--json-schema: a model that never gives a matching answer ends the run with error_max_structured_output_retries", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: Array.from({ length: 10 }, () => ({ text: "No." })) }));
  const dir = tempDir(t);
  const { code, stdout } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "json", "--json-schema", JSON.stringify(SCHEMA), "describe"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
  }).result;
  assert.equal(code, 1);
  const result = JSON.parse(stdout);
  assert.equal(result.subtype, "error_max_structured_output_retries");
  assert.equal(result.is_error, true);
  assert.equal(result.structured_output, undefined);
  assert.ok(fake.requests.length < 10, `it gives up: ${fake.requests.length} calls`);
});

test("--json-schema: a schema that is not JSON, not an object schema or not valid JSON Schema is said in one line, before any model call", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "never" }] }));
  const dir = tempDir(t);
  for (const [schema, problem] of [
    ["{not json", /--json-schema is not JSON/],
    ['["a"]', /--json-schema must be a JSON Schema object/],
    ['{"type":"string"}', /--json-schema must describe an object/],
    ['{"type":"object","properties":3}', /--json-schema is not a valid JSON Schema: .*properties/],
  ] as const) {
    const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--output-format", "json", "--json-schema", schema, "hi"], {
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: fake.url,
    }).result;
    assert.equal(code, 1, stderr);
    assert.equal(stdout, "");
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(stderr, problem);
  }
  assert.equal(fake.requests.length, 0);
});
