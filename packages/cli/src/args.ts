// Command-line parsing for `harness`. Pure: argv in, a command or a usage error out.
import type { Effort } from "@harness/llm";
import { parseDebugFilter } from "@harness/llm/debug-log";
import type { HarnessConfig } from "@harness/protocol";
import { CHAT_SESSION_OPTIONS, RUN_ONLY_FLAGS, runOnlyFlag, runOnlyMessage, takeChatSessionFlags } from "./chat/flags.ts";
import { type ChatRunFlags, RUN_SHAPING_OPTIONS, runShapingFlag, sharedServerMessage, takeChatRunFlags } from "./chat/run-flags.ts";
import { claudeSubcommand } from "./claude-subcommands.ts";
import { parseMcp, type McpCommand } from "./mcp/args.ts";
import { parseDoctor, type DoctorCommand } from "./doctor/args.ts";
import { MAX_TURNS, parseInteger } from "./parse-integer.ts";
import { parsePlugin, type PluginCommand } from "./plugin/args.ts";
import { takeRunFlags } from "./run/flags.ts";
import { SDK_OPTIONS, takeSdkFlags } from "./run/agent-sdk/flags.ts";
import { type OptionSpec, scan } from "./scan-options.ts";
import { parseToolRules } from "./tool-rules.ts";

export type Topic = "run" | "serve" | "chat" | "mcp" | "plugin" | "doctor";

export type Command =
  | { kind: "help"; topic?: Topic }
  | { kind: "version" }
  | {
      kind: "run";
      prompt: string;
      cwd?: string;
      model?: string;
      maxTurns?: number;
      permissionMode?: PermissionModeName;
      outputFormat?: OutputFormat;
      /** In place of the built-in system prompt / after it (Claude Code's flags of these names). */
      systemPrompt?: string;
      appendSystemPrompt?: string;
      /** The same, read from these files when the run starts (--system-prompt-file,
       * --append-system-prompt-file); each excludes its inline form. */
      systemPromptFile?: string;
      appendSystemPromptFile?: string;
      /** Lines for stderr about flags not taken as given (--effort xhigh). */
      notes?: string[];
      /** Go on with the conversation of the last run in this directory, or with run `resume`. */
      continue?: true;
      resume?: string;
      /** Permission rules of the run on top of the settings' (--allowedTools, --disallowedTools). */
      allowedTools?: string[];
      disallowedTools?: string[];
      /** The Agent SDK's managed settings (--managed-settings): what restricts of them, and the line
       * that says what was left out (run/agent-sdk/managed.ts). */
      managedSettings?: { settings: Record<string, unknown>; note?: string };
      /** Plugin directories loaded for the run (Claude Code's --plugin-dir), as given. */
      pluginDirs?: string[];
      /** --agents, --agent, --max-budget-usd, --fallback-model and --session-id as given (checked
       * when the run starts); --fork-session, --no-session-persistence. See run/flags.ts. */
      agents?: string;
      agent?: string;
      maxBudgetUsd?: string;
      fallbackModel?: string;
      sessionId?: string;
      forkSession?: true;
      noSessionPersistence?: true;
      /** --mcp-config, --strict-mcp-config, --settings, --setting-sources, --add-dir and --tools,
       * as given (run/config-flags.ts reads and checks them). */
      mcpConfig?: string[];
      strictMcpConfig?: true;
      settings?: string;
      settingSources?: string;
      addDirs?: string[];
      tools?: string[];
      /** stream-json: the user's messages come as JSON lines on standard input (see run/stream/input.ts). */
      inputFormat?: InputFormat;
      /** stream-json output also carries the model's streaming events (see run/stream/partial.ts). */
      includePartialMessages?: true;
      /** stream-json in and out: each user message read is echoed on stdout as its turn takes it
       * (see run/stream/input.ts, replayLine). */
      replayUserMessages?: true;
      /** With stream-json output, each hook the run fires is told in the stream as it starts and
       * ends (see run/stream/hook-events.ts). */
      includeHookEvents?: true;
      /** The JSON Schema the run's answer must match, as given (checked by the run). */
      jsonSchema?: string;
      /** The MCP tool calls that need approval are asked of (mcp__server__tool), or "stdio": the
       * program on the other end of --input-format stream-json, over its control protocol. */
      permissionPromptTool?: string;
      /** --allow-dangerously-skip-permissions: a set_permission_mode control request, or an
       * approval's setMode, may switch to bypassPermissions. */
      allowBypass?: true;
      /** The model's effort and thinking budget (--effort, --max-thinking-tokens). */
      effort?: Effort;
      maxThinkingTokens?: number;
      /** --verbose: in text mode, also the MCP servers that connect (claude -p's scripts pass it
       * with stream-json, where it changes nothing). */
      verbose?: true;
      /** --debug [filter] / --debug-file PATH: the run's debug log, its filter as given ("" for all)
       * and the file it goes to (stderr without one). */
      debug?: { filter: string; file?: string };
      /** Where the project's `.claude` configuration is read (--project-config-root), as given. */
      projectConfigRoot?: string;
    }
  | {
      kind: "serve";
      port?: number;
      host?: string;
      dataDir?: string;
      projectDir?: string;
      /** --debug [filter]: the runners' debug log, its filter as given ("" for all). */
      debug?: string;
    }
  | {
      kind: "chat";
      url?: string;
      userId?: string;
      sessionId?: string;
      prompt?: string;
      /** --continue: the user's most recent session. */
      continue?: true;
      /** --resume ID (claude's): the session must exist already, where --session opens a new one
       * under a name it does not know. */
      existing?: true;
      /** --fork-session: the chat goes on in a new session that starts as a copy of the one
       * --continue, --resume or --session names, which is left as it was. */
      forkSession?: true;
      /** --local: a server of the chat's own, on the project in `cwd` (--cwd, default the current
       * directory), for as long as the chat lasts. */
      local?: true;
      cwd?: string;
      /** --resume with no id: the chat lists the sessions to pick from. */
      pick?: true;
      /** The session's settings from claude's flags (--model, --permission-mode…), sent in one
       * configure before the first prompt; --system-prompt-file is read when the chat starts. */
      config?: HarnessConfig;
      systemPromptFile?: string;
      notes?: string[];
      /** --append-system-prompt, --allowedTools, --add-dir, --mcp-config… as given, for every run of
       * a chat of its own (--local); checked when it starts (chat/run-flags.ts). */
      runFlags?: ChatRunFlags;
      /** --permission-mode plan, in a chat of its own: its runs start in plan mode. */
      planMode?: true;
      /** --verbose: each tool call's input and output shown whole, not as a one-line summary and
       * a few lines of excerpt. */
      verbose?: true;
    }
  /** `harness mcp …`: see mcp/args.ts. */
  | { kind: "mcp"; mcp: McpCommand }
  /** `harness doctor`: see doctor/args.ts. */
  | DoctorCommand
  /** `harness plugin …`: see plugin/args.ts. */
  | { kind: "plugin"; plugin: PluginCommand }
  /** Bad usage: `message` is one line; `topic` names the help to point at. */
  | { kind: "usage-error"; message: string; topic?: Topic };

/** Claude Code's permission modes, as `harness run --permission-mode` takes them. */
export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"] as const;
export type PermissionModeName = (typeof PERMISSION_MODES)[number];

/** What `harness run` prints on stdout: the reply as text, one JSON result at the end, or every
 * event of the run as a line of JSON and then the result (Claude Code's names). */
export const OUTPUT_FORMATS = ["text", "json", "stream-json"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** What `harness run` reads on standard input: a prompt as text, or Claude Code's user messages as
 * lines of JSON, each a turn. */
export const INPUT_FORMATS = ["text", "stream-json"] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/** What --resume takes: the ids run/history.ts makes for conversations (UUIDs), and nothing that
 * could name a path. Here rather than there: every command parses its arguments, and the store
 * loads modules only runs need. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;


const RESUME_NEEDS_ID = `--resume needs the id of a conversation: harness run --resume ID "<prompt>" (-c goes on with the last one)`;

const RUN_OPTIONS: OptionSpec = {
  "--cwd": { key: "cwd", value: true },
  "--model": { key: "model", value: true },
  "-m": { key: "model", value: true },
  "--max-turns": { key: "maxTurns", value: true },
  "--permission-mode": { key: "permissionMode", value: true },
  "--output-format": { key: "outputFormat", value: true },
  "--continue": { key: "continue", value: false },
  "-c": { key: "continue", value: false },
  // claude's --resume alone opens a picker; a run has nobody to pick.
  "--resume": { key: "resume", value: true, missing: RESUME_NEEDS_ID },
  "-r": { key: "resume", value: true, missing: RESUME_NEEDS_ID },
  "--system-prompt": { key: "systemPrompt", value: true },
  "--system-prompt-file": { key: "systemPromptFile", value: true },
  "--append-system-prompt-file": { key: "appendSystemPromptFile", value: true },
  ...RUN_SHAPING_OPTIONS,
  "--agent": { key: "agent", value: true },
  "--max-budget-usd": { key: "maxBudgetUsd", value: true },
  "--fallback-model": { key: "fallbackModel", value: true },
  "--session-id": { key: "sessionId", value: true },
  "--fork-session": { key: "forkSession", value: false },
  "--no-session-persistence": { key: "noSessionPersistence", value: false },
  "--input-format": { key: "inputFormat", value: true },
  "--include-partial-messages": { key: "includePartialMessages", value: false },
  "--replay-user-messages": { key: "replayUserMessages", value: false },
  "--json-schema": { key: "jsonSchema", value: true },
  "--permission-prompt-tool": { key: "permissionPromptTool", value: true },
  // Claude Code's own spelling of bypassPermissions.
  "--dangerously-skip-permissions": { key: "skipPermissions", value: false },
  // What `claude -p` scripts pass along: -p (print mode) is the only mode `harness run` has, and
  // --verbose, which claude -p requires with stream-json, is what every format here already prints
  // (but for text's quiet MCP connections).
  "--print": { key: "print", value: false },
  "-p": { key: "print", value: false },
  "--verbose": { key: "verbose", value: false },
  ...SDK_OPTIONS,
  "--help": { key: "help", value: false },
  "-h": { key: "help", value: false },
};

const SERVE_OPTIONS: OptionSpec = {
  "--port": { key: "port", value: true },
  "-p": { key: "port", value: true },
  "--host": { key: "host", value: true },
  "--data-dir": { key: "dataDir", value: true },
  "--project": { key: "project", value: true },
  // The runners' debug log, with an optional filter as `harness run --debug` takes it; serve takes
  // no prompt, so the next argument that is no option is the filter.
  "--debug": { key: "debug", value: true, empty: true, optional: true },
  "-d": { key: "debug", value: true, empty: true, optional: true },
  "--help": { key: "help", value: false },
  "-h": { key: "help", value: false },
};

const CHAT_RESUME_EMPTY = "--resume= names no session: give its id (--resume ID), or --resume alone to pick one from a list";
const CHAT_OPTIONS: OptionSpec = {
  "--url": { key: "url", value: true },
  "--user": { key: "user", value: true },
  "--session": { key: "session", value: true },
  "--continue": { key: "continue", value: false },
  "-c": { key: "continue", value: false },
  // claude's --resume takes its id optionally: without one the chat lists the sessions to pick from.
  "--resume": { key: "resume", value: true, optional: true, missing: CHAT_RESUME_EMPTY },
  "-r": { key: "resume", value: true, optional: true, missing: CHAT_RESUME_EMPTY },
  "--fork-session": { key: "forkSession", value: false },
  "--local": { key: "local", value: false },
  "--cwd": { key: "cwd", value: true },
  // As claude's interactive --verbose: tool calls and their output shown whole.
  "--verbose": { key: "verbose", value: false },
  ...CHAT_SESSION_OPTIONS,
  ...RUN_SHAPING_OPTIONS,
  "--help": { key: "help", value: false },
  "-h": { key: "help", value: false },
};

function parseRun(args: string[]): Command {
  const scanned = scan(args, RUN_OPTIONS, "run");
  if (!scanned.ok) return { kind: "usage-error", message: scanned.message, topic: "run" };
  const { options, positionals } = scanned;
  if (options.help) return { kind: "help", topic: "run" };
  // No prompt, or "-": it is read from standard input (see run/input.ts).
  const prompt = positionals.join(" ").trim();
  const command: Command = { kind: "run", prompt: prompt === "-" ? "" : prompt };
  if (typeof options.cwd === "string") command.cwd = options.cwd;
  if (typeof options.model === "string") command.model = options.model;
  if (typeof options.maxTurns === "string") {
    const n = parseInteger("--max-turns", options.maxTurns, 1, MAX_TURNS);
    if (typeof n === "string") return { kind: "usage-error", message: n, topic: "run" };
    command.maxTurns = n;
  }
  if (typeof options.permissionMode === "string") {
    const mode = PERMISSION_MODES.find((m) => m === options.permissionMode);
    if (!mode) return { kind: "usage-error", message: `--permission-mode must be one of ${PERMISSION_MODES.join(", ")}, not "${options.permissionMode}"`, topic: "run" };
    command.permissionMode = mode;
  }
  if (options.skipPermissions) {
    if (command.permissionMode !== undefined && command.permissionMode !== "bypassPermissions") {
      return { kind: "usage-error", message: `--dangerously-skip-permissions and --permission-mode ${options.permissionMode} cannot go together`, topic: "run" };
    }
    command.permissionMode = "bypassPermissions";
  }
  if (options.continue && options.resume !== undefined) return { kind: "usage-error", message: "--continue and --resume cannot go together", topic: "run" };
  if (options.continue) command.continue = true;
  if (typeof options.resume === "string") {
    if (!RUN_ID.test(options.resume)) return { kind: "usage-error", message: `--resume takes the id of a conversation (a run's session_id in --output-format json, or a chat's chat-…), not "${options.resume}"`, topic: "run" };
    command.resume = options.resume;
  }
  for (const [inline, file, flag] of [["systemPrompt", "systemPromptFile", "--system-prompt"], ["appendSystemPrompt", "appendSystemPromptFile", "--append-system-prompt"]] as const) {
    if (typeof options[inline] === "string" && typeof options[file] === "string") {
      return { kind: "usage-error", message: `${flag} and ${flag}-file cannot go together: give one of them`, topic: "run" };
    }
    if (typeof options[inline] === "string") command[inline] = options[inline];
    if (typeof options[file] === "string") command[file] = options[file];
  }
  for (const [key, flag] of [["allowedTools", "--allowedTools"], ["disallowedTools", "--disallowedTools"]] as const) {
    const values = options[key];
    if (!Array.isArray(values)) continue;
    const rules = parseToolRules(flag, values);
    if (typeof rules === "string") return { kind: "usage-error", message: rules, topic: "run" };
    command[key] = rules;
  }
  if (Array.isArray(options.pluginDirs)) command.pluginDirs = options.pluginDirs;
  if (options.verbose) command.verbose = true;
  const flagProblem = takeRunFlags(options, command) ?? takeSdkFlags(options, command);
  if (flagProblem) return { kind: "usage-error", message: flagProblem, topic: "run" };
  if (Array.isArray(options.mcpConfig)) command.mcpConfig = options.mcpConfig;
  if (options.strictMcpConfig) command.strictMcpConfig = true;
  if (typeof options.settings === "string") command.settings = options.settings;
  if (typeof options.settingSources === "string") command.settingSources = options.settingSources;
  if (Array.isArray(options.addDirs)) command.addDirs = options.addDirs;
  if (Array.isArray(options.tools)) command.tools = options.tools;
  if (typeof options.outputFormat === "string") {
    const format = OUTPUT_FORMATS.find((f) => f === options.outputFormat);
    if (!format) return { kind: "usage-error", message: `--output-format must be one of ${OUTPUT_FORMATS.join(", ")}, not "${options.outputFormat}"`, topic: "run" };
    command.outputFormat = format;
  }
  const streamed = streamOptions(options, command);
  return typeof streamed === "string" ? { kind: "usage-error", message: streamed, topic: "run" } : command;
}

/** Claude Code's flags for programs that drive a run through JSON (the Agent SDK): sets them on
 * `command`, or says what is wrong. */
function streamOptions(options: Record<string, string | true | string[]>, command: RunCommandOptions): string | undefined {
  if (typeof options.inputFormat === "string") {
    const format = INPUT_FORMATS.find((f) => f === options.inputFormat);
    if (!format) return `--input-format must be one of ${INPUT_FORMATS.join(", ")}, not "${options.inputFormat}"`;
    if (format === "stream-json" && command.outputFormat !== "stream-json") return "--input-format stream-json needs --output-format stream-json";
    if (format === "stream-json" && command.prompt !== "") return "--input-format stream-json takes no prompt argument: the messages come on standard input";
    command.inputFormat = format;
  }
  if (options.includePartialMessages) {
    if (command.outputFormat !== "stream-json") return "--include-partial-messages needs --output-format stream-json";
    command.includePartialMessages = true;
  }
  if (options.replayUserMessages) {
    if (command.inputFormat !== "stream-json" || command.outputFormat !== "stream-json") return "--replay-user-messages requires both --input-format stream-json and --output-format stream-json";
    command.replayUserMessages = true;
  }
  if (typeof options.jsonSchema === "string") command.jsonSchema = options.jsonSchema;
  if (typeof options.permissionPromptTool === "string") {
    if (options.permissionPromptTool === "stdio" && command.inputFormat !== "stream-json") return "--permission-prompt-tool stdio needs --input-format stream-json: the approvals are asked on its control protocol";
    if (options.permissionPromptTool !== "stdio" && !/^mcp__[^_]/.test(options.permissionPromptTool)) return `--permission-prompt-tool takes an MCP tool's name (mcp__server__tool), not "${options.permissionPromptTool}"`;
    command.permissionPromptTool = options.permissionPromptTool;
  }
  return undefined;
}

type RunCommandOptions = Extract<Command, { kind: "run" }>;

function parseServe(args: string[]): Command {
  const scanned = scan(args, SERVE_OPTIONS, "serve");
  if (!scanned.ok) return { kind: "usage-error", message: scanned.message, topic: "serve" };
  const { options, positionals } = scanned;
  if (options.help) return { kind: "help", topic: "serve" };
  if (positionals.length) return { kind: "usage-error", message: `unexpected argument "${positionals[0]}" for "harness serve"`, topic: "serve" };
  const command: Command = { kind: "serve" };
  if (typeof options.port === "string") {
    const port = parsePort("--port", options.port);
    if (typeof port === "string") return { kind: "usage-error", message: port, topic: "serve" };
    command.port = port;
  }
  if (typeof options.host === "string") command.host = options.host;
  if (typeof options.dataDir === "string") command.dataDir = options.dataDir;
  if (typeof options.project === "string") command.projectDir = options.project;
  if (options.debug !== undefined) {
    const filter = options.debug === true ? "" : String(options.debug);
    const shows = parseDebugFilter(filter);
    if (typeof shows === "string") return { kind: "usage-error", message: shows, topic: "serve" };
    command.debug = filter;
  }
  return command;
}

function parseChat(args: string[]): Command {
  const runOnly = runOnlyFlag(args, CHAT_OPTIONS);
  if (runOnly) return { kind: "usage-error", message: runOnlyMessage(runOnly), topic: "chat" };
  const scanned = scan(args, CHAT_OPTIONS, "chat");
  if (!scanned.ok) return { kind: "usage-error", message: scanned.message, topic: "chat" };
  const { options, positionals } = scanned;
  if (options.help) return { kind: "help", topic: "chat" };
  const command: Command = { kind: "chat" };
  if (typeof options.url === "string") command.url = options.url;
  if (typeof options.user === "string") command.userId = options.user;
  if (typeof options.session === "string") command.sessionId = options.session;
  if (typeof options.resume === "string") {
    if (command.sessionId !== undefined) return { kind: "usage-error", message: "--resume and --session each name the session: give one of them", topic: "chat" };
    command.sessionId = options.resume;
    command.existing = true;
  }
  if (options.resume === true) {
    if (command.sessionId !== undefined) return { kind: "usage-error", message: "--resume and --session each name the session: give one of them", topic: "chat" };
    command.pick = true;
  }
  if (options.continue) {
    if (command.sessionId !== undefined || command.pick) return { kind: "usage-error", message: `--continue and ${command.existing || command.pick ? "--resume" : "--session"} each name the session: give one of them`, topic: "chat" };
    command.continue = true;
  }
  if (options.forkSession) {
    if (!command.continue && command.sessionId === undefined && !command.pick) {
      return { kind: "usage-error", message: "--fork-session copies the session of --continue, --resume or --session: give one of them", topic: "chat" };
    }
    command.forkSession = true;
  }
  if (options.local) {
    if (command.url !== undefined) return { kind: "usage-error", message: "--local starts a server of the chat's own: it takes no --url", topic: "chat" };
    command.local = true;
  }
  if (typeof options.cwd === "string") {
    if (!command.local) return { kind: "usage-error", message: "--cwd names the project of --local: give --local too", topic: "chat" };
    command.cwd = options.cwd;
  }
  const shaping = runShapingFlag(args, CHAT_OPTIONS);
  if (shaping && !command.local) return { kind: "usage-error", message: sharedServerMessage(shaping), topic: "chat" };
  const runFlags = takeChatRunFlags(options);
  if (typeof runFlags === "string") return { kind: "usage-error", message: runFlags, topic: "chat" };
  if (Object.keys(runFlags).length > 0) command.runFlags = runFlags;
  const settings = takeChatSessionFlags(options, command.local === true);
  if (typeof settings === "string") return { kind: "usage-error", message: settings, topic: "chat" };
  if (Object.keys(settings.config).length > 0) command.config = settings.config;
  if (settings.systemPromptFile !== undefined) command.systemPromptFile = settings.systemPromptFile;
  if (settings.notes.length > 0) command.notes = settings.notes;
  if (settings.planMode) command.planMode = true;
  if (options.verbose) command.verbose = true;
  const prompt = positionals.join(" ").trim();
  if (prompt) command.prompt = prompt;
  return command;
}

/** A TCP port (0 = any free port), or a one-line error naming `source`. */
export function parsePort(source: string, text: string): number | string {
  return parseInteger(source, text, 0, 65535);
}

export function parseArgs(argv: string[]): Command {
  const [first, ...rest] = argv;
  switch (first) {
    case undefined:
    case "help":
    case "--help":
    case "-h": {
      const [topic, extra] = rest;
      if (extra !== undefined) return { kind: "usage-error", message: `unexpected argument "${extra}" for "harness help"` };
      if (topic === undefined) return { kind: "help" };
      if (topic === "run" || topic === "serve" || topic === "chat" || topic === "mcp" || topic === "plugin" || topic === "doctor") return { kind: "help", topic };
      return { kind: "usage-error", message: `no help for "${topic}"` };
    }
    case "--version":
    case "-v":
    case "version":
      if (rest.length) return { kind: "usage-error", message: `unexpected argument "${rest[0]}" for "harness ${first}"` };
      return { kind: "version" };
    case "run":
      return parseRun(rest);
    case "serve":
      return parseServe(rest);
    case "chat":
      return parseChat(rest);
    case "mcp":
      return parseMcp(rest);
    case "doctor":
      return parseDoctor(rest);
    case "plugin":
    case "plugins":
      return parsePlugin(rest);
    default:
      return parseClaudeStyle(argv);
  }
}

/** What `claude` users type at the top level, where it names no command of ours: -p/--print is a
 * run (with all of its flags); -c/--continue, -r/--resume [ID], a prompt or one of the session's
 * flags (--model…) is a chat on this project (`harness chat --local`), with the chat's meaning of
 * them. One bare word is taken for a mistyped command rather than sent to the model as a prompt. */
function parseClaudeStyle(argv: string[]): Command {
  const options = argv.slice(0, argv.includes("--") ? argv.indexOf("--") : argv.length);
  if (options.includes("-p") || options.includes("--print")) return parseRun(argv);
  const first = argv[0];
  const flag = first.split("=")[0];
  // --fork-session alone is a chat's, refused there for want of a session to copy.
  const chatFlag = ["-c", "--continue", "-r", "--resume", "--fork-session", "--cwd", "--verbose"].includes(flag) || flag in CHAT_SESSION_OPTIONS || flag in RUN_SHAPING_OPTIONS;
  if (first.startsWith("-") && !chatFlag) {
    return { kind: "usage-error", message: RUN_ONLY_FLAGS.includes(flag) ? runOnlyMessage(flag) : `unknown option "${flag}"` };
  }
  const claudeOnly = claudeSubcommand(argv);
  if (claudeOnly) return { kind: "usage-error", message: claudeOnly };
  if (argv.length === 1 && /^[a-z][a-z0-9-]*$/.test(first)) {
    return { kind: "usage-error", message: `unknown command "${first}"; to give a prompt: harness -p "${first}" (one run) or harness chat --local "${first}" (a chat)` };
  }
  return parseChat(["--local", ...argv]);
}
