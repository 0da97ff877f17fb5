// Entry point of the raw MCP test server: `node mcp-raw-server.ts <script.json>`. It speaks MCP's
// JSON-RPC over stdin/stdout by hand, without the SDK's checks, so that tests can meet what real
// servers send and the SDK's own server never would: tool lists with malformed or unusual schemas,
// answers of any size. It writes every message it receives, one JSON line each, to the script's
// `log` file, and exits when stdin closes.
import fs from "node:fs";
import readline from "node:readline";
import type { McpRawServerScript } from "./mcp-raw-command.ts";

const file = process.argv[2];
if (!file) {
  process.stderr.write("mcp-raw-server: usage: mcp-raw-server.ts <script.json>\n");
  process.exit(2);
}
const script = JSON.parse(fs.readFileSync(file, "utf8")) as McpRawServerScript;
let afterNextListing: (() => void) | undefined;
const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (script.log) fs.appendFileSync(script.log, `${line}\n`);
  let message: { id?: number | string; method?: string; params?: { name?: string; cursor?: string; protocolVersion?: string; _meta?: { progressToken?: string | number } } };
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined || message.method === undefined) return;
  const answer = (result: unknown) => send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      return answer({ protocolVersion: message.params?.protocolVersion, capabilities: { tools: {}, ...(script.resources && { resources: {} }) }, serverInfo: { name: "raw", version: "1.0.0" } });
    case "tools/list": {
      if (script.toolsPaged) {
        const at = Number(message.params?.cursor ?? 0);
        answer({ tools: script.tools.slice(at, at + 1), ...(at + 1 < script.tools.length && { nextCursor: String(at + 1) }) });
      } else answer({ tools: script.tools });
      return afterNextListing?.();
    }
    case "resources/list":
      return answer({ resources: script.resources ?? [], nextCursor: `after-${message.params?.cursor ?? "start"}` });
    case "tools/call": {
      const name = message.params?.name ?? "";
      const result = script.results?.[name];
      if (result === "hang") return;
      if (Array.isArray(result?.changeTools)) {
        script.tools = result.changeTools;
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
        // Answered once the client has listed the tools anew, so that it knows them by then (or
        // after a second, for a client that does not).
        const done = () => {
          clearTimeout(timer);
          afterNextListing = undefined;
          answer({ content: [{ type: "text", text: "tools changed" }] });
        };
        const timer = setTimeout(done, 1_000);
        afterNextListing = done;
        return;
      }
      const token = message.params?._meta?.progressToken;
      if (typeof result?.progressEveryMs === "number" && typeof result.progressCount === "number") {
        // Reports progress (when the call asked for it, with a progressToken) before answering.
        let sent = 0;
        const timer = setInterval(() => {
          if (token !== undefined) send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: ++sent } });
          else sent++;
          if (sent < (result.progressCount as number)) return;
          clearInterval(timer);
          answer({ content: [{ type: "text", text: `done after ${sent} steps` }] });
        }, result.progressEveryMs);
        return;
      }
      if (Array.isArray(result?.progressReports)) {
        // Sent as they are, each with the call's progressToken unless it names its own.
        for (const report of result.progressReports as Record<string, unknown>[]) {
          send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, ...report } });
        }
        const reported = () => answer({ content: [{ type: "text", text: `reported ${(result.progressReports as unknown[]).length} times` }] });
        if (typeof result.answerAfterMs === "number") setTimeout(reported, result.answerAfterMs);
        else reported();
        return;
      }
      if (typeof result?.textBytes === "number") return answer({ content: [{ type: "text", text: "x".repeat(result.textBytes) }] });
      return answer(result ?? { content: [{ type: "text", text: `called ${name}` }] });
    }
    default:
      return answer({});
  }
});
process.stdin.once("end", () => process.exit(0));
