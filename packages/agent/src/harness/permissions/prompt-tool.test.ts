import assert from "node:assert/strict";
import { test } from "node:test";
import { promptAnswer } from "./prompt-tool.ts";

const input = { command: "touch a.txt" };

test("a permission prompt tool's allow may carry updatedPermissions; ones that do not parse refuse the call, naming the entry", () => {
  const rule = { type: "addRules", rules: [{ toolName: "Bash", ruleContent: "touch:*" }], behavior: "allow", destination: "session" };
  assert.deepEqual(promptAnswer("mcp__gate__ask", JSON.stringify({ behavior: "allow", updatedInput: input, updatedPermissions: [rule] }), input), { behavior: "allow", updatedInput: input, updatedPermissions: [rule] });
  assert.deepEqual(promptAnswer("mcp__gate__ask", JSON.stringify({ behavior: "allow", updatedPermissions: [] }), input), { behavior: "allow", updatedInput: input });
  assert.deepEqual(promptAnswer("mcp__gate__ask", JSON.stringify({ behavior: "allow", updatedPermissions: null }), input), { behavior: "allow", updatedInput: input });
  assert.throws(
    () => promptAnswer("mcp__gate__ask", JSON.stringify({ behavior: "allow", updatedPermissions: [{ ...rule, destination: "everywhere" }] }), input),
    /^Error: the permission prompt tool mcp__gate__ask answered with updatedPermissions\[0\]\.destination: /,
  );
});
