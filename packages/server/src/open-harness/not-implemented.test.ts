import { test } from "node:test";
import assert from "node:assert/strict";
import { unimplementedCapability } from "./not-implemented.ts";

test("no operation of the spec is named as not implemented: the registry's register, update and unregister are served too", () => {
  const cases: [string, string, string | undefined][] = [
    ["GET", "/harnesses/harness/agents", undefined],
    ["POST", "/harnesses/harness/agents", undefined],
    ["GET", "/harnesses/harness/agents/a1/memory/blocks/persona", undefined],
    ["GET", "/harnesses/harness/agents/a1/memory/archive", undefined],
    ["POST", "/harnesses/harness/agents/a1/memory/archive", undefined],
    ["POST", "/harnesses/harness/agents/import", undefined],
    ["POST", "/harnesses/harness/agents/a1/clone", undefined],
    ["POST", "/harnesses/harness/agents/main/subagents", undefined],
    ["DELETE", "/harnesses/harness/agents/main/subagents/s1", undefined],
    ["PUT", "/harnesses/harness/agents/a1/memory/blocks/persona", undefined],
    ["POST", "/harnesses/harness/agents/a1/memory/search", undefined],
    ["POST", "/harnesses/harness/hooks", undefined],
    ["POST", "/harnesses/harness/mcp-servers", undefined],
    ["POST", "/harnesses/harness/mcp-servers/m1/health", undefined],
    ["GET", "/harnesses/harness/mcp-servers/m1/resources", undefined],
    ["POST", "/harnesses/harness/tools", undefined],
    ["POST", "/harnesses/harness/files/upload-batch", undefined],
    ["GET", "/harnesses/harness/files/src/index.ts", undefined],
    ["POST", "/harnesses/harness/files/search", undefined],
    ["HEAD", "/harnesses/harness/skills/s1/download", undefined],
    ["GET", "/harnesses/harness/skills/s1/versions", undefined],
    ["POST", "/harnesses/harness/skills/discover", undefined],
    ["PATCH", "/harnesses/harness/executions/e1/plan/tasks/1", undefined],
    ["PATCH", "/harnesses/harness", undefined],
    ["PATCH", "/harnesses/acme-cloud", undefined],
    ["DELETE", "/harnesses/acme-cloud", undefined],
    ["POST", "/harnesses/harness/validate-credentials", undefined],
    ["POST", "/harnesses", undefined],
    ["GET", "/harnesses/harness/nothing", undefined],
    ["POST", "/harnesses/harness/agents/a1", undefined],
    ["GET", "/harnesses/harness/executions", undefined],
    ["GET", "/harnesses/harness/tools/Read", undefined],
    ["POST", "/harnesses/harness/tools/Read/invoke", undefined],
    ["DELETE", "/harnesses/harness/tools/Read", undefined],
    ["GET", "/harnesses/harness/events/stream", undefined],
    ["GET", "/harnesses/harness/diagnostics", undefined],
    ["GET", "/harnesses/harness/logs", undefined],
    ["GET", "/harnesses/harness/sessions/s1/connect", undefined],
    ["GET", "/harnesses/harness/conformance/status", undefined],
    ["POST", "/harnesses/harness/conformance/run", undefined],
  ];
  for (const [method, path, capability] of cases) assert.equal(unimplementedCapability(method, path), capability, `${method} ${path}`);
});
