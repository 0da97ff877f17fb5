// Where each operation of the manifest is served: its method and a path of its route with sample ids
// (under /v1/harnesses/harness). The harness.routes test checks that every operation the manifest
// claims has a route in the app's table that is no 501 of not-implemented.ts, without calling it: many
// change or remove what they name. An operation claimed but not listed here fails that test too.
import { unimplementedCapability } from "../not-implemented.ts";

const S = "/sessions/s1";
const E = "/executions/e1";
const SUB = "/agents/main/subagents/x1";
const MEM = "/agents/main/memory";

export const OPERATION_ROUTES: Record<string, [method: string, path: string]> = {
  "harnesses.list": ["GET", "/v1/harnesses"],
  "harnesses.get": ["GET", ""],
  "harnesses.capabilities": ["GET", "/capabilities"],
  "harnesses.health": ["GET", "/health"],
  "harnesses.validateCredentials": ["POST", "/validate-credentials"],
  "harnesses.register": ["POST", "/v1/harnesses"],
  "harnesses.update": ["PATCH", ""],
  "harnesses.unregister": ["DELETE", ""],
  "agents.list": ["GET", "/agents"],
  "agents.get": ["GET", "/agents/a1"],
  "agents.create": ["POST", "/agents"],
  "agents.update": ["PATCH", "/agents/a1"],
  "agents.delete": ["DELETE", "/agents/a1"],
  "agents.clone": ["POST", "/agents/a1/clone"],
  "agents.export": ["GET", "/agents/a1/export"],
  "agents.import": ["POST", "/agents/import"],
  "skills.list": ["GET", "/skills"],
  "skills.get": ["GET", "/skills/k1"],
  "skills.register": ["POST", "/skills"],
  "skills.update": ["PATCH", "/skills/k1"],
  "skills.uninstall": ["DELETE", "/skills/k1"],
  "skills.download": ["GET", "/skills/k1/download"],
  "skills.validate": ["POST", "/skills/validate"],
  "skills.listVersions": ["GET", "/skills/k1/versions"],
  "skills.rollback": ["POST", "/skills/k1/rollback"],
  "skills.upgrade": ["POST", "/skills/k1/upgrade"],
  "skills.discover": ["POST", "/skills/discover"],
  "mcp.list": ["GET", "/mcp-servers"],
  "mcp.get": ["GET", "/mcp-servers/m1"],
  "mcp.listTools": ["GET", "/mcp-servers/m1/tools"],
  "mcp.listResources": ["GET", "/mcp-servers/m1/resources"],
  "mcp.listPrompts": ["GET", "/mcp-servers/m1/prompts"],
  "mcp.health": ["POST", "/mcp-servers/m1/health"],
  "mcp.connect": ["POST", "/mcp-servers"],
  "mcp.update": ["PATCH", "/mcp-servers/m1"],
  "mcp.disconnect": ["DELETE", "/mcp-servers/m1"],
  "tools.list": ["GET", "/tools"],
  "tools.get": ["GET", "/tools/Read"],
  "tools.register": ["POST", "/tools"],
  "tools.unregister": ["DELETE", "/tools/t1"],
  "tools.invoke": ["POST", "/tools/Read/invoke"],
  "tools.invokeStream": ["POST", "/tools/Read/invoke/stream"],
  "execution.run": ["POST", "/execute"],
  "execution.stream": ["POST", "/execute/stream"],
  "execution.list": ["GET", "/executions"],
  "execution.get": ["GET", E],
  "execution.attachStream": ["GET", `${E}/stream`],
  "execution.cancel": ["POST", `${E}/cancel`],
  "execution.result": ["GET", `${E}/result`],
  "execution.listToolCalls": ["GET", `${E}/tool-calls`],
  "execution.sendInput": ["POST", `${E}/input`],
  "execution.listArtifacts": ["GET", `${E}/artifacts`],
  "execution.downloadArtifact": ["GET", `${E}/artifacts/1`],
  "sessions.list": ["GET", "/sessions"],
  "sessions.create": ["POST", "/sessions"],
  "sessions.get": ["GET", S],
  "sessions.update": ["PATCH", S],
  "sessions.end": ["DELETE", S],
  "sessions.history": ["GET", `${S}/history`],
  "sessions.sendMessage": ["POST", `${S}/message`],
  "sessions.sendMessageStream": ["POST", `${S}/message/stream`],
  "sessions.resume": ["POST", `${S}/resume`],
  "sessions.fork": ["POST", `${S}/fork`],
  "sessions.connect": ["GET", `${S}/connect`],
  "memory.get": ["GET", MEM],
  "memory.listBlocks": ["GET", `${MEM}/blocks`],
  "memory.getBlock": ["GET", `${MEM}/blocks/persona`],
  "memory.createBlock": ["POST", `${MEM}/blocks`],
  "memory.updateBlock": ["PUT", `${MEM}/blocks/persona`],
  "memory.deleteBlock": ["DELETE", `${MEM}/blocks/persona`],
  "memory.search": ["POST", `${MEM}/search`],
  "memory.export": ["POST", `${MEM}/export`],
  "memory.import": ["POST", `${MEM}/import`],
  "memory.getArchive": ["GET", `${MEM}/archive`],
  "memory.addToArchive": ["POST", `${MEM}/archive`],
  "subagents.list": ["GET", "/agents/main/subagents"],
  "subagents.get": ["GET", SUB],
  "subagents.result": ["GET", `${SUB}/result`],
  "subagents.attachStream": ["GET", `${SUB}/stream`],
  "subagents.terminate": ["DELETE", SUB],
  "subagents.spawn": ["POST", "/agents/main/subagents"],
  "subagents.delegate": ["POST", `${SUB}/delegate`],
  "subagents.delegateStream": ["POST", `${SUB}/delegate/stream`],
  "files.list": ["GET", "/files"],
  "files.read": ["GET", "/files/src/a.txt"],
  "files.download": ["GET", "/files/src/a.txt/download"],
  "files.write": ["PUT", "/files/src/a.txt"],
  "files.mkdir": ["POST", "/files/mkdir"],
  "files.delete": ["DELETE", "/files/src/a.txt"],
  "files.search": ["POST", "/files/search"],
  "files.upload": ["POST", "/files/upload"],
  "files.uploadBatch": ["POST", "/files/upload-batch"],
  "files.downloadBatch": ["POST", "/files/download-batch"],
  "hooks.list": ["GET", "/hooks"],
  "hooks.get": ["GET", "/hooks/project.PreToolUse.0.0"],
  "hooks.register": ["POST", "/hooks"],
  "hooks.update": ["PATCH", "/hooks/project.PreToolUse.0.0"],
  "hooks.unregister": ["DELETE", "/hooks/project.PreToolUse.0.0"],
  "hooks.listEvents": ["GET", "/events"],
  "hooks.streamEvents": ["GET", "/events/stream"],
  "webhooks.register": ["POST", "/webhooks"],
  "webhooks.list": ["GET", "/webhooks"],
  "webhooks.delete": ["DELETE", "/webhooks/w1"],
  "planning.get": ["GET", `${E}/plan`],
  "planning.listTasks": ["GET", `${E}/plan/tasks`],
  "planning.stream": ["GET", `${E}/plan/stream`],
  "planning.update": ["PATCH", `${E}/plan`],
  "planning.updateTask": ["PATCH", `${E}/plan/tasks/1`],
  "diagnostics.get": ["GET", "/diagnostics"],
  "diagnostics.logs": ["GET", "/logs"],
  "diagnostics.streamLogs": ["GET", "/logs/stream"],
  "conformance.run": ["POST", "/conformance/run"],
  "conformance.stream": ["GET", "/conformance/run/stream"],
  "conformance.results": ["GET", "/conformance/results"],
  "conformance.status": ["GET", "/conformance/status"],
};

/** A route's path (hono's: `:name`, `:name{regex}`, `*`) as a regular expression. */
function patternOf(path: string): RegExp {
  const parts = path.split("/").map((part) => {
    const custom = /^:[A-Za-z]+\{(.+)\}$/.exec(part);
    if (custom) return `(?:${custom[1]})`;
    if (part.startsWith(":")) return "[^/]+";
    if (part === "*") return ".*";
    return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  });
  return new RegExp(`^${parts.join("/")}$`);
}

/** Why `operation` is not served by one of `routes` (method and path of each), or undefined when it
 * is: a route of its own, not the catch-all, whose answer is not not-implemented.ts's 501. */
export function unroutedWhy(operation: string, routes: readonly { method: string; path: string }[]): string | undefined {
  const known = OPERATION_ROUTES[operation];
  if (!known) return `${operation}: claimed by the manifest, but no route is known for it`;
  const [method, sample] = known;
  const path = sample.startsWith("/v1") ? sample : `/v1/harnesses/harness${sample}`;
  const unimplemented = unimplementedCapability(method, path.slice("/v1".length));
  if (unimplemented) return `${operation}: ${method} ${path} is answered 501 (${unimplemented} is listed as not implemented)`;
  const served = routes.some((route) => route.method === method && !route.path.endsWith("/*") && patternOf(route.path).test(path));
  return served ? undefined : `${operation}: no route answers ${method} ${path} (it would be 404)`;
}
