// The line `harness run --output-format stream-json` opens with, as `claude -p` does: Claude Code's
// `system`/`init` message, with the conversation's id and what the run works with (model, tools,
// MCP servers, slash commands…) once its configuration is loaded.
import type { RunReadyInfo } from "@harness/agent";

/** Holds the stream's lines until the opening line is written: at `ready`, or, for a run that ends
 * before it was set up (a bad model, /help), at `end` with the id and directory alone. */
export function streamOpening(write: (line: string) => void, sessionId: string, cwd: string) {
  let opened = false;
  const waiting: string[] = [];
  const open = (info?: RunReadyInfo) => {
    if (opened) return;
    opened = true;
    write(`${JSON.stringify({ type: "system", subtype: "init", session_id: sessionId, cwd, ...(info && initFields(info)) })}\n`);
    for (const line of waiting.splice(0)) write(line);
  };
  return {
    ready: (info: RunReadyInfo) => open(info),
    line: (line: string) => (opened ? write(line) : waiting.push(line)),
    end: () => open(),
  };
}

function initFields(info: RunReadyInfo) {
  return {
    model: info.model,
    permissionMode: info.permissionMode,
    tools: info.tools,
    mcp_servers: info.mcpServers,
    slash_commands: info.slashCommands,
    agents: info.agents,
    skills: info.skills,
    output_style: info.outputStyle,
    plugins: info.plugins,
  };
}
