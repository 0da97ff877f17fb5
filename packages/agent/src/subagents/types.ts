import type { Usage } from "@harness/protocol";
import type { HooksConfig } from "../hooks/types.ts";
import type { PermissionMode } from "../permissions/types.ts";
import type { ToolAttachment, ToolOutput } from "../types.ts";

/** Where a definition came from. Later sources override earlier ones by name:
 * built-in < plugin < user (`~/.claude/agents`) < project (`<root>/.claude/agents`) < cli (given
 * with the run, Claude Code's --agents). */
export type AgentSource = "built-in" | "plugin" | "user" | "project" | "cli";

/** A sub-agent type the Task tool can start, in Claude Code's terms. */
export type AgentDefinition = {
  /** What the model passes as `subagent_type`. */
  name: string;
  /** When to use this agent; shown to the parent model in the Task tool's description. */
  description: string;
  /** The sub-agent's system prompt (the body of its .md file). */
  systemPrompt: string;
  /** Allowed tool names; undefined inherits every tool of the parent (except Task). */
  tools?: string[];
  /** Tool names removed from the inherited or listed tools. */
  disallowedTools?: string[];
  /** "sonnet" | "opus" | "haiku" | "inherit" | a full model id; undefined inherits the parent's. */
  model?: string;
  /** The permission mode the sub-agent's tool calls are checked in; undefined inherits the parent's.
   * See subagentPermissionMode. */
  permissionMode?: PermissionMode;
  /** Skills whose full text the sub-agent starts with, before its task (Claude Code's preloaded
   * skills); it does not inherit the main conversation's. Not for the main thread's agent. */
  skills?: string[];
  /** Its frontmatter's `mcpServers`: servers it names (configured elsewhere) and servers it
   * defines (`config`, an `mcpServers` entry). As the main thread (--agent) those it defines start
   * with the run, the configured ones winning a name clash; as a sub-agent they start with it and
   * close when it ends, for it alone (harness/mcp/subagent-mcp.ts). */
  mcpServers?: AgentMcpServer[];
  /** Model calls the sub-agent may make; undefined inherits the parent's limit. */
  maxTurns?: number;
  /** Hooks of its frontmatter, as the file has them, which run while it does, after the settings'
   * own: as a sub-agent its Stop hooks run as SubagentStop (asSubagentHooks), as in Claude Code; as
   * the main thread (--agent) they are the run's Stop hooks. */
  hooks?: HooksConfig;
  source: AgentSource;
  /** The plugin it comes from (source "plugin"): its name is `<plugin>:<agent>`. */
  plugin?: string;
  /** The .md file it was loaded from (absent for built-ins). */
  file?: string;
};

/** One entry of an agent's `mcpServers`: a configured server's name, or a server it defines. */
export type AgentMcpServer = { name: string; config?: unknown };

/** A problem with an agent file; the file is skipped, the others still load. */
export type AgentDiagnostic = { file: string; key?: string; message: string };

/** What the Task tool asks the host to run. */
export type SubagentRequest = {
  /** Short label of the task (3-5 words), for the UI. */
  description: string;
  /** The task for the sub-agent: its first and only user message. */
  prompt: string;
  agent: AgentDefinition;
  /** What a forked skill gives its sub-agent besides the task (see ForkedSkillTask). */
  forkedSkill?: ForkedSkillTask;
  /** The Task call's `model`, which wins over the definition's (CLAUDE_CODE_SUBAGENT_MODEL still
   * wins over both). */
  model?: string;
  /** Run it detached (the Task call's run_in_background): the call answers at once with its id. */
  background?: boolean;
};

/** A forked skill's part in its sub-agent's run: the images its task's mentions read (they go with
 * the task), its own hooks (which run while the sub-agent does, after the agent file's), and
 * whether its text asks for thinking ("ultrathink"). */
export type ForkedSkillTask = {
  images?: ToolAttachment[];
  hooks?: HooksConfig;
  asksToThink?: boolean;
};

/** The sub-agent's final reply as the Task call's tool_result, plus what it cost. `usage` is the sum
 * over the sub-agent's model calls and is not part of the parent's own usage: the host adds it
 * (read it with `subagentUsage(output)`). */
export type SubagentOutput = ToolOutput & { usage?: Usage; agentId?: string; toolUses?: number };
