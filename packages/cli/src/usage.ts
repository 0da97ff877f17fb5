import type { Topic } from "./args.ts";

const MAIN = `harness — an open, self-hostable agent harness

Usage:
  harness ["<prompt>"], harness -c   chat with the agent on this project (harness chat --local;
                                     harness alone at a terminal; -c goes on with the last
                                     conversation here, a chat's or a -p run's, --resume ID with
                                     the one of that id, --resume alone with one picked from a
                                     list; --fork-session with a copy of it; --model,
                                     --permission-mode and the chat's other session options,
                                     --verbose, and --add-dir, --mcp-config and the chat's other
                                     run options, go with them)
  harness -p "<prompt>"              the same as harness run (all of its options)
  harness run [options] "<prompt>"   run the agent once in this terminal
  harness serve [options]            start the Harness server (WebSocket + REST)
  harness chat [options] ["<prompt>"]
                                     talk to a session of a running server, or with --local
                                     to the agent in this project, no server needed
  harness mcp <command> [options]    manage MCP servers, in Claude Code's files: add, add-json,
                                     list, get, remove
  harness plugin <command> [options] install plugins from marketplaces, in Claude Code's files:
                                     marketplace add|list|remove|update, install, uninstall,
                                     enable, disable, list
  harness doctor [--cwd DIR] [--json]
                                     check this setup: Node, the model and its key, settings,
                                     MCP servers, the sandbox, ripgrep, the server's data directory
  harness help [run|serve|chat|mcp|plugin|doctor]
                                     show help
  harness --version                  print the version

Run "harness help <command>" for its options.
`;

const RUN = `Usage: harness run [options] "<prompt>"

Runs the agent once, in this process. The reply streams to a terminal; tool activity goes to stderr.
When stdout is a pipe or a file, it gets only the answer, at the end, as from claude -p (what the
model says before its tool calls goes to stderr with them).
Without a prompt (or with -), the prompt is read from standard input: git diff | harness run -
With a prompt, input piped or redirected in follows it: cat error.log | harness run "explain"
(to leave it out, say in a "while read" loop or from a program that keeps its pipe open:
< /dev/null)
Exit status: 0 on success, 1 when the run fails, 2 for bad usage, 130 when cancelled with Ctrl+C,
143 when terminated (SIGTERM), 129 when its terminal closed (SIGHUP).

Options:
  --cwd DIR          directory the agent works in (default: the current directory)
  -m, --model M      model to use (default: $HARNESS_MODEL, else the built-in default)
  --max-turns N      stop after N model calls
  --permission-mode M
                     default | acceptEdits | plan | bypassPermissions | dontAsk (default: the
                     project's settings, else "default": with nobody to approve, calls that would
                     need approval are refused, as dontAsk does; acceptEdits lets file edits in the
                     project through)
  --dangerously-skip-permissions
                     the same as --permission-mode bypassPermissions
  -c, --continue     go on with the last conversation in this directory, a run's or a chat's
  -r, --resume ID    go on with conversation ID: a run's (its session_id in --output-format json)
                     or a chat's (chat-…, as the chat names it)
  --system-prompt TEXT
                     in place of the built-in system prompt (the environment, memory files and
                     skills still follow it)
  --append-system-prompt TEXT
                     added after the system prompt
  --system-prompt-file FILE, --append-system-prompt-file FILE
                     the same, read from FILE (each in place of its inline form)
  --allowedTools RULES
                     permission rules that let calls through without asking, in the settings'
                     syntax, separated by commas: --allowedTools "Read,Bash(npm test:*)"
  --disallowedTools RULES
                     rules that refuse calls, whatever the mode:
                     --disallowedTools "Bash(git push:*)"
  --plugin-dir DIR   load the Claude Code plugin in DIR for this run (may repeat), besides the
                     installed plugins the settings enable
  --agents JSON      sub-agents for this run, over agent files of the same name:
                     '{"reviewer": {"description": "…", "prompt": "…", "tools": ["Read"]}}'
  --agent NAME       run the main thread as agent NAME (default: the settings' "agent"): its prompt
                     in place of the built-in one, its tools and its model
  --max-budget-usd N stop once the run has cost N US dollars (result subtype error_max_budget_usd)
  --fallback-model M go on with model M when the model is overloaded
  --session-id UUID  keep the run's conversation under this id (not one already used)
  --fork-session     with -c or -r: go on under a new id, leaving the old conversation as it was
  --no-session-persistence
                     keep nothing of this run under ~/.harness/runs
  --mcp-config FILE|JSON...
                     MCP servers for this run, in .mcp.json's shape ({"mcpServers": {...}}), from
                     files or JSON strings (several, or repeated); they start without approval,
                     under the managed MCP policy
  --strict-mcp-config
                     only the servers of --mcp-config: none of .mcp.json, ~/.claude.json, the
                     settings or plugins
  --settings FILE|JSON
                     settings for this run, above the project's and below the managed ones
  --setting-sources LIST
                     the settings files read, and whose CLAUDE.md, skills, commands and agents:
                     user, project, local, separated by commas (default: all; "" for none); the
                     managed settings are always read
  --add-dir DIR...   more directories the file tools reach, as permissions.additionalDirectories;
                     their skills, commands and agents load too (their CLAUDE.md files with
                     CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1)
  --tools LIST       the built-in tools offered to the model: "Bash,Edit,Read", "" for none,
                     "default" for all (MCP tools stay)
  --output-format F  text (default) | json: stdout gets one JSON result when the run ends (type,
                     subtype, is_error, result or error, num_turns, duration_ms, usage,
                     total_cost_usd, permission_denials, session_id), stderr only warnings |
                     stream-json: stdout gets
                     a first line with the session_id, every event of the run as a line of JSON
                     (with Claude Code's assistant and user messages), then the result
  --input-format F   text (default) | stream-json: standard input carries user messages as lines
                     of JSON ({"type":"user","message":{"role":"user","content":…}}), each a turn
                     of the same conversation with a result line after it, until input ends (with
                     --output-format stream-json; a line that is not a message stops the run),
                     and Claude Code's control requests (initialize, interrupt, set_model,
                     set_permission_mode), each answered by a control_response line
  --include-partial-messages
                     with --output-format stream-json, also the model's streaming events as the
                     API sends them, each in a {"type":"stream_event","event":…} line
  --replay-user-messages
                     with stream-json input and output, echo each user message read on stdout
                     as its turn takes it ({"type":"user",…,"isReplay":true}, with its uuid)
  --include-hook-events
                     with --output-format stream-json, also each hook the run fires: a system
                     line of subtype hook_started as it starts, and hook_response as it ends
                     (hook_id, hook_name, hook_event, stdout, stderr, output, exit_code, outcome);
                     SessionStart hooks' lines come with or without this flag
  --json-schema SCHEMA
                     the answer must be JSON matching this JSON Schema (an object's): the model
                     gives it through a StructuredOutput tool, checked against the schema, and
                     the result has it as structured_output
  --permission-prompt-tool mcp__SERVER__TOOL
                     ask this MCP tool about calls that would need approval, instead of refusing
                     them: it gets {tool_name, input, tool_use_id} and answers
                     {"behavior":"allow","updatedInput":{…}} or {"behavior":"deny","message":"…"};
                     stdio (with --input-format stream-json): ask the program on standard input,
                     as the Claude Agent SDK answers Claude Code (a can_use_tool control request)
  --effort LEVEL     low | medium | high | max: how hard the model works on its answer (xhigh,
                     which the models here do not take, runs as high, and says so)
  --max-thinking-tokens N
                     let the model think first, up to N tokens (0: no thinking)
  --allow-dangerously-skip-permissions
                     let the run be switched to bypassPermissions: by a set_permission_mode
                     control request, or by an approval's setMode (canUseTool, a PermissionRequest
                     hook, --permission-prompt-tool); never where the settings say
                     disableBypassPermissionsMode
  --verbose          as text, also say which MCP servers connected (as claude -p, a run says only
                     which failed); the other formats already print everything
  -d, --debug [FILTER]
                     write timestamped debug lines to stderr: model requests and retries, MCP
                     servers, hooks, permission decisions; FILTER picks categories ("api,hooks")
                     or leaves some out ("!mcp"); categories: api, mcp, hooks, permissions,
                     telemetry
  --debug-file PATH  write them to PATH instead (implies --debug)
  -p, --print        taken and ignored, for scripts written for claude -p; so are the other flags
                     the Agent SDK starts Claude Code with that have no meaning here (--betas…)
  -h, --help         show this help

Environment:
  ANTHROPIC_API_KEY    required for Anthropic models (not for openai/… or ollama/…)
  ANTHROPIC_AUTH_TOKEN a bearer token in its place
  ANTHROPIC_BASE_URL   another Anthropic-compatible endpoint
  CLAUDE_CODE_USE_VERTEX=1   Claude through Google Cloud's Vertex AI (with
                       ANTHROPIC_VERTEX_PROJECT_ID, CLOUD_ML_REGION, GOOGLE_APPLICATION_CREDENTIALS)
                       instead of a key
  CLAUDE_CODE_USE_BEDROCK=1  Claude through Amazon Bedrock (with AWS_REGION, and
                       AWS_BEARER_TOKEN_BEDROCK, AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or
                       AWS_PROFILE) instead of a key
  HARNESS_MODEL        default model
`;

const SERVE = `Usage: harness serve [options]

Starts the Harness server and prints its URL (bound to every interface, --host 0.0.0.0, loopback
first, then the machine's addresses). Stops cleanly on Ctrl+C or SIGTERM: runs still in flight are
written down as interrupted (after HARNESS_STOP_GRACE_MS, during which /healthz answers 503); a
second signal stops at once.

Options:
  -p, --port N       port to listen on (default: $PORT, else 7700; 0 = any free port)
  --host HOST        interface to bind (default: $HARNESS_HOST, else 127.0.0.1)
  --data-dir DIR     where sessions and workspaces are kept (default: $HARNESS_DATA_DIR, else
                     ./.harness; with --project, ~/.harness/projects/<name>-<hash>)
  --project DIR      every session works in DIR (your project) instead of a workspace of its own;
                     deleting or forking a session leaves DIR's files alone. For one person's
                     server.
  -d, --debug [FILTER]
                     each runner writes a debug log (model requests, MCP servers and all their
                     stderr, hooks, permission decisions) beside its output, in the data directory's
                     runners/<user>/runner-<n>.debug.log; FILTER as harness run --debug takes it
                     ("mcp", "!api"); a failed MCP server's report then names the file
  -h, --help         show this help

Environment:
  ANTHROPIC_API_KEY    the key runs use (without it the server starts, but runs fail)
  ANTHROPIC_AUTH_TOKEN a bearer token in its place
  HARNESS_TOKEN        require this bearer token from every client (needed off loopback); it acts
                       as any user
  HARNESS_TOKENS_FILE  a file of "<user> <token>" lines: each token acts as its user only; re-read
                       when it changes and on SIGHUP (which then does not stop the server)
  HARNESS_METRICS_TOKEN     a token that reads GET /metrics and nothing else, for a scraper
                       (16 characters or more, unlike the other tokens)
  HARNESS_ALLOWED_ORIGINS   web pages (comma-separated origins) that may use the server without a
                       token, besides pages on this machine
  HARNESS_STOP_GRACE_MS     how long a stopping server lets runs in flight finish (default 0)
  HARNESS_WEBHOOKS_ALLOW_PRIVATE   1: webhooks and registered tools may name this machine (tests)
  HARNESS_TOOL_ENDPOINT_TIMEOUT_MS a registered tool's wait for its endpoint (default 120000)
  HARNESS_DEBUG        as --debug: a filter ("mcp"), or 1 for all categories
  PORT, HARNESS_HOST, HARNESS_DATA_DIR   defaults for the options above
`;

const CHAT = `Usage: harness chat [options] ["<prompt>"]

Connects to a session of a running server (harness serve), shows its conversation and follows it
live; what you type is sent to it (a prompt, or while a run is under way, a steer; lines pasted
together are one). The session is the server's: leaving the chat leaves a run going, and any
client of the session sees the same.
From a pipe (echo "…" | harness chat), each line waits for the run before it; the exit status
is then 1 when the last run failed.

With --local, no server is needed: the chat starts one of its own for the project in the current
directory (or --cwd), where the agent then works, and keeps its sessions under ~/.harness/projects
for --continue and --session. --continue then goes on with the last conversation of the
directory, a chat's or a harness -p run's, and --resume ID takes the ids of both. A run still
going when you leave is cancelled.

Options:
  --url URL          the server (default: $HARNESS_URL, else http://127.0.0.1:7700)
  --user ID          your user id (default: $HARNESS_USER, else your login name)
  --session ID       the session to join or start (default: a new one, named on screen)
  -c, --continue     your most recently used session
  -r, --resume ID    session ID, which must exist already; without ID, the sessions newest first,
                     with their titles and ages, to pick one by its number (not at a terminal: the
                     list, and exit 2)
  --fork-session     with -c, --resume or --session: go on in a new session that starts as a
                     copy of that one, which stays as it was
  --local            a server of the chat's own, on this project
  --cwd DIR          the project of --local (default: the current directory)
  --verbose          show each tool call's input and output whole, not a summary and a few lines
  -h, --help         show this help

The session's settings, as claude's options set them (sent before the first prompt, kept by the
session for its later runs; the chat says what they are):
  --model M          the model
  --permission-mode M
                     default | acceptEdits | bypassPermissions (plan and dontAsk are harness
                     run's only)
  --dangerously-skip-permissions
                     the same as --permission-mode bypassPermissions
  --system-prompt TEXT, --system-prompt-file FILE
                     in place of the built-in system prompt ("" puts it back)
  --effort LEVEL     low | medium | high | max (xhigh runs as high)
  --max-turns N      stop each run after N model calls

With --local (or harness with no command), as harness run takes them, for every run of the chat
(a chat on a shared server refuses them: they would change the runs of its other clients too):
  --append-system-prompt TEXT        added after the system prompt
  --append-system-prompt-file FILE   the same, from a file (read as the chat starts)
  --allowedTools, --disallowedTools RULES
                     permission rules on top of the settings' ("Read,Bash(git log:*)")
  --add-dir DIR…     directories besides the project that the file tools reach
  --mcp-config FILE|JSON…, --strict-mcp-config
                     MCP servers to start (only them, with --strict-mcp-config)
  --settings FILE|JSON, --setting-sources user,project,local
                     settings above the project's; the settings files read
  --agents JSON      sub-agents, over agent files of the same names
  --plugin-dir DIR   a plugin to load besides the installed ones
  --tools NAMES      the built-in tools offered ("" none, "default" all)
Claude's other options (--agent, --fallback-model, --json-schema…) are harness run's.

In the chat: /cancel, /approve [N], /deny [N] [reason], /mode M, /model ID, /rewind [N],
/resume [N|ID], /commands, /exit, /help.
Esc or Ctrl+C cancels a run under way; with none, Ctrl+C clears the line, and leaves when pressed
twice on an empty one; Esc twice lists the prompts to rewind to. A line ending in \\ (or Alt+Enter)
goes on to a new line of the same prompt. Ctrl+D leaves.

Environment:
  HARNESS_TOKEN        the server's token, when it has one
`;

const MCP = `Usage: harness mcp <command> [options]

Manages the MCP servers runs use, in the files Claude Code keeps them in (claude mcp writes the
same), so both tools share one configuration. Options go before the server's name.

Commands:
  harness mcp add [options] NAME -- COMMAND [ARGS…]
                     add a stdio server (its own options after --)
  harness mcp add --transport http|sse [-H "Name: value"…] NAME URL
                     add a remote server
  harness mcp add-json [--scope S] [--client-secret] NAME '{"command": …}'
                     add a server from its JSON, as .mcp.json holds one
  harness mcp list   each server with its scope, and whether it connects (✓/✗, its tools)
  harness mcp get NAME
                     a server's configuration and scope
  harness mcp remove [--scope S] NAME
                     remove a server (--scope when the name is in several)
  harness mcp login NAME
                     sign in to an http or sse server with OAuth: prints the authorization URL
                     (and opens a browser, $BROWSER if set), waits for it on
                     http://localhost:<port>/callback, and keeps the tokens in
                     ~/.claude/harness-mcp-oauth.json (mode 0600; in CLAUDE_CONFIG_DIR when it
                     is set) for runs to use and refresh
  harness mcp logout NAME
                     forget a server's sign-in

Options:
  -s, --scope S      local (default): yours, in this project only (its entry of ~/.claude.json) |
                     project: shared, in the project's .mcp.json (a server there starts once
                     approved, as in Claude Code) | user: yours, in every project (~/.claude.json)
  -t, --transport T  stdio (default) | http | sse
  -e, --env KEY=value
                     a stdio server's environment variable (may repeat)
  -H, --header "Name: value"
                     an http or sse server's header (may repeat)
  --client-id ID     the OAuth client registered with an http or sse server's authorization
                     server, for servers that register none on request ("oauth.clientId")
  --client-secret    that client's secret, asked for (or MCP_CLIENT_SECRET) and kept in the
                     sign-in file, never in the config file; a public client has none
  --callback-port PORT
                     sign in on http://localhost:PORT/callback, the redirect URI registered
                     ("oauth.callbackPort"); default: any free port
  -h, --help         show this help

Environment:
  MCP_TIMEOUT          how long list waits for a server to connect (default here: 5000 ms)
  MCP_CLIENT_SECRET    the secret of --client-secret, instead of asking for it
`;

const PLUGIN = `Usage: harness plugin <command> [options]

Installs plugins from marketplaces, in the files Claude Code keeps them in (claude plugin writes the
same), so a plugin installed by either tool is loaded by both.

Commands:
  harness plugin marketplace add SOURCE
                     add a marketplace: a directory holding .claude-plugin/marketplace.json, a
                     git URL (https, ssh, file://; cloned into ~/.claude/plugins/marketplaces) or
                     owner/repo on GitHub
  harness plugin marketplace list
  harness plugin marketplace update [NAME]
                     fetch git marketplaces again (all, or NAME) and read their plugins again
  harness plugin marketplace remove NAME [--keep-data]
                     uninstall the plugins installed from it (every scope), then forget it
  harness plugin install PLUGIN@MARKETPLACE [--scope S]
                     copy the plugin into ~/.claude/plugins/cache, record it in
                     ~/.claude/plugins/installed_plugins.json and enable it in the scope's settings;
                     a marketplace not added that the project's settings declare
                     ("extraKnownMarketplaces") is added first
  harness plugin uninstall PLUGIN@MARKETPLACE [--scope S] [--keep-data]
                     with its last installation, its data directory (~/.claude/plugins/data)
                     goes too, unless --keep-data
  harness plugin enable|disable PLUGIN@MARKETPLACE [--scope S]
                     turn it on or off in the scope's settings ("enabledPlugins")
  harness plugin list
                     the plugins installed, with version, scope and whether they are enabled here;
                     then those the project's settings enable and the marketplaces they declare
                     that are not there yet (a run never fetches them: it names these commands)

Options:
  -s, --scope S      user (default for install): yours, in every project (~/.claude/settings.json) |
                     project: shared with the project (.claude/settings.json) | local: yours, in
                     this project only (.claude/settings.local.json); uninstall, enable and
                     disable default to the scope it is installed in
  -h, --help         show this help
`;

const DOCTOR = `Usage: harness doctor [options]

Checks what a run or a server here would use, in order, each ✓ (fine), ! (worth a look) or ✗
(a run or the server would fail), with what to do when not ✓: Node and this Harness, the model
(its provider, whether credentials are set, and one small request to it), the settings files,
memory files, MCP servers (each started), hooks, the sandbox, ripgrep, the claude-code
backend's binary, OpenTelemetry (one empty export to each collector endpoint, 5 s at most), and
for harness serve the data directory, the port and the log settings. Exit status 1 when anything
is ✗.

Options:
  --cwd DIR          check a run in DIR (default: the current directory)
  --settings FILE|JSON
                     also the settings a run would be given with --settings
  --json             print the checks as a JSON array of {check, status, detail, remedy}
                     (status "ok", "warn" or "fail")
`;

export function helpText(topic?: Topic): string {
  return topic === "doctor" ? DOCTOR : topic === "run" ? RUN : topic === "serve" ? SERVE : topic === "chat" ? CHAT : topic === "mcp" ? MCP : topic === "plugin" ? PLUGIN : MAIN;
}

export function usageHint(topic?: Topic): string {
  return topic ? `try "harness ${topic} --help"` : `try "harness --help"`;
}
