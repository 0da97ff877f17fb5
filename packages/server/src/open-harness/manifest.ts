// What this server is in the Open Harness registry: its own harness, and a capability manifest that says
// truthfully what its API does and does not do (a client reads it before it tries an operation).
export const HARNESS_ID = "harness";

type DomainCapability = { supported: boolean; operations: string[]; limitations?: string[] };

const notHere = (what: string): DomainCapability => ({ supported: false, operations: [], limitations: [what] });

export const CAPABILITIES = {
  harnesses: {
    supported: true,
    operations: ["harnesses.list", "harnesses.get", "harnesses.capabilities", "harnesses.health", "harnesses.validateCredentials", "harnesses.register", "harnesses.update", "harnesses.unregister"],
    limitations: [
      "the registry is the server's, shared by its users: this server's own harness (id harness: never registered over, 409, nor changed or unregistered, 403) and those registered, kept in the server's database across restarts, at most 1000, listed in the order registered after this one; register, update and unregister take the administrator's token (HARNESS_TOKEN), or any request on a server without tokens: a person's own token (HARNESS_TOKENS_FILE) reads the registry and changes nothing (403)",
      "register takes id (kebab-case, at most 100 characters), name and vendor (1 to 100 characters), description (1 to 1000), execution_type and config: base_url (an http or https URL with no credentials, query or fragment), binary_path and skills_path (absolute paths on this machine); status starts active; update takes name, description, status and config in part (a key given null is dropped); an unknown field is refused 400 naming it; an id registered already is refused 409",
      "a registered harness is not served by this server, only its registry entry (get, update, unregister, capabilities, health): any other operation under its id (sessions, agents, executions, validateCredentials …) answers 421 misdirected_request naming it and its base_url; so no session or execution here is ever one of its, and no credentials are kept for it: unregister forgets the entry, nothing else",
      "a registered harness's capabilities are {} until asked: capabilities of a hosted one with a base_url asks GET {base_url}/harnesses/{id}/capabilities (within 5 s, no redirect followed, at most 1 MiB read), keeps the manifest and version it answers (then in its Harness too) and answers 502 naming why when it gives none; another's are answered as unknown, message saying why",
      "a registered hosted harness's health asks GET {base_url}/harnesses/{id}/health (within 5 s, no redirect followed, at most 64 KiB read): checks reachable, health_endpoint and harness (the status it gives itself), each with latency_ms, the status its own; an sdk or ide harness's is whether its binary_path is an executable file and its skills_path a readable directory on this machine; with nothing to check it is degraded, message saying so; unlike this server's own health check, a registered harness's needs a token",
      "validateCredentials checks api_key, or without one the server's own key, against the provider of the runs' model (HARNESS_MODEL, else the default) where the runs reach it (ANTHROPIC_BASE_URL, OPENAI_BASE_URL …) with its cheapest request (Anthropic's count_tokens, the OpenAI-compatible model list), within 10 s; besides valid and error it answers provider, base_url, model, key_source (request or server) and reason (missing, refused, unreachable, timeout, provider_error); keys are never shown nor stored (store: true and base_url are answered 501); runs through Amazon Bedrock or Vertex AI are not checked (501)",
    ],
  },
  agents: {
    supported: true,
    operations: ["agents.list", "agents.get", "agents.create", "agents.update", "agents.delete", "agents.clone", "agents.export", "agents.import"],
    limitations: [
      "per session (session_id in the query): the sub-agents its runs would have, the built-in ones, the enabled plugins' (named plugin:agent) and the .md files of .claude/agents in the user's home and the workspace (a later one replacing one of the same name); its next run reads the changes",
      "an agent's id is its name; scope says where it comes from (built-in, plugin, user, project); version is empty; the dates are its file's last change (the server's start for a built-in one)",
      "config holds the model and the system prompt its file gives (no temperature or max_tokens: given, 501); skills and mcp_servers are names its frontmatter lists, each required; the system prompt is shown with secrets hidden as ***, as the logs hide them",
      "create, update, delete, clone and import write only the workspace's own agents, the file .claude/agents/<name>.md, as Claude Code's /agents does (written beside and renamed into place; a .claude leading out of the workspace is refused 400); built-in, plugin and user agents (~/.claude/agents) are not changed (403 naming the scope): clone one to have one of the workspace's",
      "create takes JSON (name, description, config.system_prompt, config.model, tools, skills, mcp_servers) or the spec's form (metadata with name and description, and one .md file: the agent's whole file or its system prompt); a name is one word of letters, digits, -, _ and . of at most 64 characters; a name any agent has already is refused 409; what would not load as the runs load it is refused 400 naming why",
      "update changes the frontmatter keys it is given and the body (system_prompt), keeping the file's other keys and comments; a new name renames the file too",
      "export answers a ZIP holding AGENTS.md, the agent's file (one from outside the workspace is written out from what the runs read, secrets hidden as ***); import takes such a ZIP as bundle (one .md file at its root) and rename_to; include_memory is taken and has no effect: memory is the session's CLAUDE.md files, shared by every agent",
    ],
  },
  skills: {
    supported: true,
    operations: ["skills.list", "skills.get", "skills.register", "skills.update", "skills.uninstall", "skills.download", "skills.validate", "skills.listVersions", "skills.rollback", "skills.upgrade", "skills.discover"],
    limitations: [
      "per session (session_id in the query): the skills its last run had, or before its first run those it would find, in .claude/skills of the workspace or of the user's home, and the enabled plugins'; its next run reads the changes",
      "description and dates come from the skill's SKILL.md; vendor is empty, version is empty but in the answers of register, update, rollback and upgrade (the version now current); category is user for the user's and the workspace's skills (scope says which), plugin for a plugin's, builtin for one whose file the server does not find",
      "register takes the spec's form: files (SKILL.md and the files it brings, each part's filename its path; all in one folder named after the skill, or SKILL.md at the root, named by its frontmatter's name), at most 200 files and 10 MiB; it writes the folder .claude/skills/<name> of the workspace whole (a hidden folder renamed into place; a .claude leading out of the workspace is refused 400); a name any skill has already is refused 409; metadata's category can only be user, its display_title is not kept",
      "validate answers what the runs' own loader makes of a bundle: errors (it would not load: no SKILL.md, no description, bad frontmatter, a name unlike its folder's) and warnings (what the loader ignores in it), each with its file and a code",
      "update changes SKILL.md's description (its other keys and body kept); uninstall removes the skill's folder; download answers a ZIP of it (its folder at the root); only the workspace's skills (scope project) are changed or downloaded: the user's (~/.claude/skills) and plugins' are refused 403 naming the scope",
      "versions are the workspace skills' folders as the API wrote them (register, update, upgrade), each kept whole by the server (not in the workspace) per session and skill, with a number (counting from 1, never reused), created_at, changelog, a content hash (sha256 of the files' paths and bytes), files and size_bytes; a folder changed outside the API (by hand or by a run) since it last wrote it is kept as a version of its own when next seen (listVersions, or before an update, upgrade, rollback or uninstall), so none of those loses it (one of more than 200 files or 10 MiB cannot be kept: update, upgrade and rollback are refused 409, listVersions says so in warning); at most 20 versions and 50 MiB a skill are kept, the oldest going first; a fork keeps its source's versions, a deleted session's go with it; uninstalling keeps them",
      "listVersions answers skill_id, current_version (the one the folder is now; empty when it is not there) and versions, the newest first; rollback takes { version }, puts that version's files back whole as register writes a skill, once the runs' loader takes them (400 naming why not), without adding a version (but when keeping the folder as it was dropped that one, the oldest: then it is kept again as the newest), and answers the skill and previous_version; an uninstalled skill with versions kept, or one whose folder no longer loads, can be listed, downloaded and rolled back too; upgrade takes the spec's form (files as register takes them, changelog of at most 1000 characters) for a workspace skill of the same name (400 otherwise; 404 when there is none), written whole in place of its folder and kept as its newest version (whose number is always greater); download's version serves a kept version (404 skill_version_not_found for one not kept)",
      "discover answers the skills the session's runs find, each already_registered (a skill is registered by its folder being where the runs read it; path in the workspace, from ~/ in the home, else absolute; with scope), and the folders holding a SKILL.md among search_paths (paths in the session's workspace, at most 20, each with the folders right below it, at most 500: nothing outside the workspace is searched), already_registered when the runs find a skill of that name",
    ],
  },
  mcp: {
    supported: true,
    operations: ["mcp.list", "mcp.get", "mcp.listTools", "mcp.listResources", "mcp.listPrompts", "mcp.health", "mcp.connect", "mcp.update", "mcp.disconnect"],
    limitations: [
      "per session (session_id in the query): the servers its settings configure now, as a run would load them (.mcp.json, ~/.claude.json, the user's and managed settings, enabled plugins), each with harness_status: connected or failed as the last run had it, pending (the next run starts it), pending approval, disabled (disabledMcpjsonServers) or disabled by policy, with warning saying why; status is connected, error (failed) or disconnected (any other)",
      "listTools, listResources, listPrompts and health ask the servers themselves: the session's runner starts them as a run would (same configuration, approvals, environment and sandbox), asks them (each request within 10 s, the whole within 60 s: 504 after) and stops them; while a run is under way in the session they are refused (409); a server a run would not start is not started (409 for its lists; health unhealthy, naming why); one that fails to start is 502 for its lists; health is healthy (connected, ping answered), degraded (connected, ping failed or a listing went wrong) or unhealthy, latency_ms the ping's, with harness_status; with the claude-code backend they answer 501",
      "connect, update and disconnect write the project's .mcp.json in the session's workspace, as claude mcp add --scope project does (transport stdio takes env, http and sse take headers besides the spec's keys); a server connected (or given a transport) over the API is approved for that session's runs with the builtin backend, kept by the server, not in the workspace, for that entry as written: changed by anything else it waits for the user's approval (enabledMcpjsonServers or enableAllProjectMcpServers in ~/.claude/settings.json, or Claude Code's answer in ~/.claude.json), as a .mcp.json server the API did not write does; renamed it keeps the approval, disconnected it loses it",
      "servers of the user's configuration, the managed one or a plugin are not written (403), nor any beside a managed-mcp.json; an entry the runs would not start or the settings' MCP policy denies is refused (400, 403); .mcp.json that is not valid JSON is left as it is (409); auto_reconnect: false is not supported (501)",
      "a transport is shown without env and headers, with secrets hidden as ***; what servers say (descriptions, errors) is shown the same way, bounded (500 tools, 1000 resources, 500 prompts, descriptions of 4000 characters, input schemas of 32000)",
    ],
  },
  tools: {
    supported: true,
    operations: ["tools.list", "tools.get", "tools.register", "tools.unregister", "tools.invoke", "tools.invokeStream"],
    limitations: [
      "per session (session_id in the query): the tools its last run offered the model, in that order, or before its first run those a run would start with (less those the settings' deny rules withhold); an id is the tool's name",
      "register adds a tool (source custom) to one session (session_id in the query), kept by the server and copied to its forks, that its next runs offer the model with the builtin backend (with claude-code: 501); the handler must be a webhook (a command handler is 501) whose URL each call's { tool, tool_use_id, input } is POSTed to from the session's runner, through the run's proxy and TLS settings; a 2xx answer is the result (its text, or JSON { content, is_error }), any other status, an unreachable endpoint, a redirect (not followed) or no answer within 120 s (HARNESS_TOOL_ENDPOINT_TIMEOUT_MS) is an error result; answers are read up to 1 MiB",
      "a registered tool's name is 1 to 64 letters, digits, _ and -, starting with a letter (not mcp__); a built-in tool's name, in any case, or one the session has registered is refused 409, as is a 51st tool; input_schema must be a JSON Schema object of type object, at most 64 KiB; the URL is held to webhook URLs' rules when it is registered (the runner does not resolve its name again at each call); description is 1 to 1000 characters; permission rules name the tool as any tool (a deny rule withholds it; a call asks for approval unless an allow rule names it); unregister removes only registered tools (404 for others), from the runs that start after it",
      "invoking runs a built-in tool on the session's runner as a run would (its settings, permission rules and mode, hooks, sandbox), with the builtin backend only; output is { content }, the result the model would get; a call that would ask for approval is refused (403 approval_required: no one is asked), one a rule or hook refuses is 403 permission_denied; while a run is under way in the session a call is refused (409), and a prompt sent during a call fails as the runner is busy; a direct call takes no file checkpoint (a rewind does not undo it)",
      "a built-in tool's description and input_schema are those the builtin agent sends the model, as a run would make them now (Task's lists the session's agents), with secrets hidden as ***; with the claude-code backend (HARNESS_BACKEND) the tools are Claude Code's own and have their names only, and none are listed before the first run",
      "MCP tools (source mcp, source_id their server) are those of the servers the session's settings configure now, with the description and input_schema the servers give, as mcp.listTools asks them (the runner starts them); while a run is under way, or when they cannot be asked, those of the last run by name only; ToolSearch (added when a run defers many MCP tools) is not listed; no tool has source skill",
    ],
  },
  execution: {
    supported: true,
    operations: ["execution.run", "execution.stream", "execution.list", "execution.get", "execution.attachStream", "execution.cancel", "execution.result", "execution.listToolCalls", "execution.sendInput", "execution.listArtifacts", "execution.downloadArtifact"],
    limitations: [
      "an execution is one prompt (a submit) in a session: without session_id a new session is made for it",
      "agent_id, skills, model, max_tokens, temperature and system_prompt are not taken per execution (answered 501)",
      "a tool call that needs approval makes the execution wait: GET the execution for its pending_input (the call and what it does), answer with execution.sendInput data \"yes\" or \"no\" (or a WebSocket client approves or denies it); the stream itself shows no prompt event",
      "executions are stored as they start, run and end, and kept an hour after they end, at most 1000 a user (the oldest ended go first); agent_id is not a filter of their list",
      "an execution under way when the server stopped reads as failed after the restart (error server_stopped, then done): the session's history holds what its run did",
      "no progress or tool_call_delta events; the result's output is the reply's text",
      "artifacts are the files of the session's workspace the run created or changed, whatever did it (an edit tool, a shell command, a sub-agent), as its file checkpoint sees them (never .git, node_modules, files the workspace's .gitignore ignores, or anything outside the workspace), as they are now: one since deleted is not listed; where the run took no checkpoint (git missing), those its Write, Edit, MultiEdit and NotebookEdit calls that succeeded named; an artifact's id is its place among the files the run made (from 1), its name its path in the workspace",
      "an artifact event is streamed for each file as the run makes it (after the call that made it; a file deleted before it was seen is not announced); a run that changes more than 1000 files has the first 1000 as artifacts, and its artifacts list says truncated: true",
    ],
  },
  sessions: {
    supported: true,
    operations: ["sessions.list", "sessions.create", "sessions.get", "sessions.update", "sessions.end", "sessions.history", "sessions.sendMessage", "sessions.sendMessageStream", "sessions.resume", "sessions.fork", "sessions.connect"],
    limitations: [
      "sessions belong to a user: the one the x-harness-user header or the userId query parameter names, else the token's (HARNESS_TOKENS_FILE)",
      "status is always active (there is no pause: an update takes a name only); ending a session deletes it with its history and workspace",
      "messages carry no time of their own: created_at is the session's",
      "connect_url is the Harness WebSocket (/ws, its own protocol of state and deltas); sessions.connect is the spec's channel, at /v1/harnesses/harness/sessions/{id}/connect (the user in the userId query parameter, the x-harness-user header, or the token's)",
      "on sessions.connect each message is an execution of the session, its events sent under the message's id, each naming its execution_id: text, thinking, tool_call (as a call starts, with its tool_call_id), prompt (a call waits to be approved; stdin with the message's id answers yes or no), artifact (a file the run made, with its artifact_id and size_bytes), error and done; stdout and stderr are never sent (a run's tool results are in the session's history); cancel takes the execution's id or the message's; the channel closes (4404) once the session is deleted, seen at its next message or when a run of it ends; its messages' executions go on if it closes",
      "resume answers the session and its connect_url: a session is never paused (its next message wakes it, with its conversation), so there is nothing else to resume",
      "fork copies the conversation and the workspace's files; from_message_id at a reply forks up to and including it, at a user message forks the conversation before it and answers that message's text as prompt (to send again or change); the files are as they were at that point, else as they are now and warning says why",
    ],
  },
  memory: {
    supported: true,
    operations: ["memory.get", "memory.listBlocks", "memory.getBlock", "memory.createBlock", "memory.updateBlock", "memory.deleteBlock", "memory.search", "memory.export", "memory.import", "memory.getArchive", "memory.addToArchive"],
    limitations: [
      "per session (session_id in the query): the memory files its runs read at their start (CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, CLAUDE.local.md and rules, of the user and of the directories down to the workspace, the files they import, and auto memory's MEMORY.md when it is on), in that order; every agent of the session has the same, and a change is every agent's",
      "each file is one block labelled by its path (in the workspace; \"~/…\" in the user's home; else absolute), its text as the run reads it (a rule's without its frontmatter) with secrets hidden as ***, updated_at its last change, scope its level (user, project, parent, local, auto); rules that apply to some paths only are not listed",
      "blocks of the workspace are written: create makes a memory file a run reads at its start (label CLAUDE.md, .claude/CLAUDE.md, AGENTS.md, CLAUDE.local.md or a .md file of .claude/rules; a bare name such as persona is the rule .claude/rules/persona.md), update replaces a file's text (a rule keeps its frontmatter), delete removes the file; the session's next run reads the change; the user's blocks and those outside the workspace are read only (403); read_only: true is not supported (501)",
      "search finds the blocks, and unless include_archive is false the archive's entries (as read, secrets hidden), that hold the query, ignoring case: one result a block (source block, its label) or entry (source archive, its id), content the lines that hold it (at most 20, each cut at 500 characters), relevance_score its count of matches over the highest (the best is 1), matches that count; the best first, at most limit",
      "the archive is the session's auto memory directory's archive/ folder (by default ~/.claude/projects/<project>/memory/archive in the runs' home): an entry is a file <id>.md, a front matter (id, created_at, metadata as one line of JSON) then its content; the runs never load it at their start, and the builtin backend's system prompt tells the model to search it there (Grep, Glob, Read, allowed in that directory without asking); a file there written by hand or by the model counts when its front matter gives created_at, its id being its name",
      "addToArchive writes a new entry (content 1 to 100000 characters; metadata a JSON object of at most 16 KiB as JSON), atomically, confined to the directory (never through a link out of it), even in the user's home (whose memory files are otherwise read only here: the runs write this directory without asking); getArchive lists the entries newest first (by created_at), paginated, secrets hidden as ***; archive_size is their count; while auto memory is off for the session (autoMemoryEnabled false, or CLAUDE_CODE_DISABLE_AUTO_MEMORY) both answer 409 auto_memory_disabled naming the setting, archive_size is 0 and search finds no entry",
      "export is a ZIP of the workspace's blocks: each file as it is under blocks/<label>, blocks.json (the blocks as read) and archive.json (the archive's entries as written, newest first; [] with include_archive false); import writes such a ZIP's blocks/ files back as blocks through create's and update's checks, and appends archive.json's entries to the archive (ids kept unless taken, then new; created_at and metadata kept), all checked before any is written (at most 200 files, 8 MiB); merge_strategy overwrite (default) or skip, conflicts naming the blocks that were there; merge is not supported (501); a new file the runs would not read is taken back and listed in skipped",
    ],
  },
  subagents: {
    supported: true,
    operations: ["subagents.list", "subagents.get", "subagents.result", "subagents.attachStream", "subagents.terminate", "subagents.spawn", "subagents.delegate", "subagents.delegateStream"],
    limitations: [
      "per session (session_id in the query); the parent agent is the main agent of the session's runs, agent id main (a sub-agent has no Task tool and starts none): any other is 404",
      "listed are the sub-agents the session's executions' runs started, one per Task call (its id the call's, name its subagent_type, description and prompt its input, status and times the call's; kept as long as the executions, an hour after they end), and those spawned over the API; runs a WebSocket client started are no executions and theirs are not listed",
      "a sub-agent's tool_calls are the calls it made; its text and thinking are not recorded, only its result (the Task call's output, its last reply); its usage is not recorded (0) but for a delegated task's; a background one (run_in_background) reads as completed once launched, its output the launch notice",
      "attachStream sends the calls a run's sub-agent makes, then its result as text (an error when it failed or was stopped) and done; a delegated task's stream also has its text and thinking as it writes them",
      "status: idle (spawned, given no task), running, completed or failed (a stopped one too: its result's status is cancelled)",
      "spawn takes name (an agent type of the session, as agents.list gives them), description (the task's short description) and model (an alias or model id); system_prompt and skills are not taken (501: an agent type's are its file's); builtin backend only",
      "delegate runs its task as the main agent's Task call would, on the session's runner, with the session's permission rules and mode (a call that would ask for approval is refused, as tools.invoke refuses it); refused 409 while a run is under way in the session, and a prompt sent meanwhile fails as the runner is busy; each task starts the agent afresh; context is not taken (501); the answer's execution_id is the sub-agent's id (a delegation is no execution); the task goes on if the request closes",
      "terminate stops a running sub-agent alone and answers once it has stopped: a run's goes on, its Task call's result saying the sub-agent was interrupted (the builtin backend; Claude Code's runs stop none alone: 502); a spawned one not running is removed",
      "spawned sub-agents are kept in memory while their session is, at most 100 a user and 1000 in all (the oldest not running go first)",
    ],
  },
  files: {
    supported: true,
    operations: ["files.list", "files.read", "files.download", "files.write", "files.mkdir", "files.delete", "files.search", "files.upload", "files.uploadBatch", "files.downloadBatch"],
    limitations: [
      "the workspace is a session's: every call names one of the user's sessions by session_id (in the query; in the body of mkdir), and acts in the directory its runs work in (the server's project, when it serves one)",
      "paths are relative to the workspace (\"/\" alone lists the workspace itself): an absolute path, a \"..\" segment or a symbolic link leading out of the workspace is refused 400",
      "a write takes at most 10 MiB (413 beyond); a list answers at most 10000 entries (then truncated: true); links are listed as what they lead to, those leading out of the workspace are left out",
      "mime_type comes from the extension, else from the first bytes (text/plain or application/octet-stream)",
      "search takes a glob (from its path; ** for any depth) and/or grep (a JavaScript regular expression, matched line by line in text files of at most 10 MiB, at most 100 lines a file); it passes by .git, node_modules, .hg and .svn unless include_ignored is true, the path starts in one or the glob names one; it stops at max_results, 100,000 entries or 10 s, answering what it found with truncated: true and reason",
      "upload and upload-batch take multipart/form-data with session_id as a field (or in the query); a file is at most 10 MiB (413), a batch at most 500 files and 100 MiB (413); overwrite defaults to false: upload answers 409 file_exists, upload-batch lists the file in skipped",
      "download-batch answers a ZIP (deflated) of the paths, a folder with all it holds, at most 1000 entries and 1 GiB (413 beyond); every path is checked before the archive starts",
    ],
  },
  hooks: {
    supported: true,
    operations: ["hooks.list", "hooks.get", "hooks.register", "hooks.update", "hooks.unregister", "hooks.listEvents", "hooks.streamEvents", "webhooks.register", "webhooks.list", "webhooks.delete"],
    limitations: [
      "per session (session_id in the query): the hooks of the settings files a run in its workspace reads (managed, user, project, local), as they run under disableAllHooks and allowManagedHooksOnly; the session's next run has what is changed",
      "register writes the project's .claude/settings.json (scope local: .claude/settings.local.json) in the session's workspace, a new group of one hook (matcher optional; harness_event names Claude Code's event, needed for custom, error defaulting to PostToolUseFailure); update changes a hook's handler, unregister removes it; the user's and managed settings are read only (403), a settings file that is not valid JSON is left as it is (409), and a hook the runs would not load is refused (400)",
      "a hook's id is its place (scope.event.group.hook): removing one renumbers those after it in its event; enabled: false is not supported (501): settings files have no switch per hook",
      "Claude Code's events other than PreToolUse (pre_tool), PostToolUse (post_tool), Stop (stop), PostToolUseFailure and StopFailure (error) are custom; harness_event names each, scope and matcher say where it is and what it matches",
      "http hooks are webhook handlers; prompt and agent hooks have handler type prompt or agent; plugins' and skills' hooks are not listed",
      "the events (list and stream) are the user's own: executions' execution.started and execution.completed (status says how it ended; no usage: the execution's result has it), kept as long as their executions (an hour after they end; a run a WebSocket client starts is no execution); and session.created (created, forked with forked_from, or opened by a WebSocket client on a new session id), session.ended (deleted: sessions end no other way), skill.installed and skill.uninstalled (over this API), hook.triggered and error (a run that failed, code run_failed), stored in the server's database and kept 7 days, at most the newest 10000 a user, read back after a restart with their ids (a stream resumed with Last-Event-ID across it sends only what it missed)",
      "hook.triggered is told as a configured hook ends, with the builtin backend only (not claude-code); hook_id names that run of the hook (the hooks' own ids are their places in the settings files, unknown to the run); data holds harness_event, matcher, handler (secrets as ***), outcome (success, error or cancelled), duration_ms and a command's exit_code",
      "an event's id begins with its time in milliseconds, the feed's order being time first, whatever the type; the list is the most recent first, since filters by the event's time; the stream takes events=a,b (comma-separated) to filter (an unknown type is refused, named), sends { type, …data, timestamp } with the event's id, only new events without Last-Event-ID and those after it with one, and a comment every 25 s while quiet",
      "webhooks are the user's own (another's are not found) and take the events execution.started, execution.completed (every end; status says how it ended), execution.failed and execution.cancelled (those ends only), and the feed's other types (session.created, session.ended, skill.installed, skill.uninstalled, hook.triggered, error: body { event, harness_id, event_id, data, occurred_at, timestamp }); GET and PATCH /webhooks/{id} get and change one (enabled, url, events, secret); the secret is shown only in the answer to the register",
      "webhook URLs must be https and name no loopback, private, link-local or reserved address, nor a name that resolves to one (unless the server runs with HARNESS_WEBHOOKS_ALLOW_PRIVATE=1, which also takes http to loopback); URLs with credentials are refused; redirects are not followed",
      "a delivery is a POST signed in X-OpenHarness-Signature (sha256=HMAC-SHA256 of the raw body) with its time in X-OpenHarness-Timestamp and the body's timestamp; each attempt times out after 10 s; a 5xx, 408, 429, timeout or connection error is retried 3 times (after 1 s, 5 s, 25 s), not the spec's hours; at most 1000 deliveries wait at once (newer ones are dropped and logged); executions interrupted by a server's stop are not delivered",
    ],
  },
  planning: {
    supported: true,
    operations: ["planning.get", "planning.listTasks", "planning.stream", "planning.update", "planning.updateTask"],
    limitations: [
      "an execution's plan is the todo list its run keeps with the TodoWrite tool (the last list a call or a change over the API set; empty when none did); tasks are numbered by their place in the list",
      "update and updateTask change the list while the run is under way: it is the run's list at once, and the model reads it with its next request; once the run has ended, 409 (the plan is the run's); a task's id names it as it stands, order (all or none) sets the order; with HARNESS_BACKEND=claude-code, which keeps its own list, 501",
      "plan.stream sends task.added, task.updated and task.removed (never plan.reordered), numbered for Last-Event-ID, and ends when the execution does",
    ],
  },
  conformance: {
    supported: true,
    operations: ["conformance.run", "conformance.stream", "conformance.results", "conformance.status"],
    limitations: [
      "a self-check of this deployment, not the spec's external certification: the server runs its own suite against its own API over loopback HTTP (the same routes, token check and validation a client meets, as the caller with their token), in a scratch session made for the run and deleted after it; nothing calls the model unless the execution category is named, and the caller's other sessions and the user's home are not touched",
      "categories: harness (get, capabilities, health, this harness refused a change or unregistering, and every operation claimed here has a route, checked by the route table without calling it), sessions, files, agents, skills, hooks, memory, mcp (list, connect, disconnect; slow: a small stdio server started by the session's runner and its tools listed), tools (slow: the session's runner started, its Read and Bash tools called in its sandbox), robustness (bad input refused 4xx naming the problem, what was stored kept: a failure is a golden-rule violation) and execution, run only when named (it runs prompts on the model, which costs tokens; slow): a tiny prompt streamed (text, then done with usage), its execution listed completed, read by its id, its result's output and usage, and a longer prompt cancelled while it runs; each step bounded, one that does not answer failing the test naming it; an unknown category is refused 400 naming the known ones",
      "the slow tests start the session's runner: quick: true skips them; where the server serves a project (every session's workspace), the tests that write a workspace are skipped, so such a deployment is partial at best",
      "one run at a time on the server (409 conformance_run_in_progress, details.run_id when it is the caller's); the stream replays a run's events then follows it live (Last-Event-ID: the number of the last event seen), run_id defaulting to the latest; the last 50 runs of each user are kept in the server's database; a run cut short by the server's stop is not kept (its scratch session, named conformance run <run_id>, may stay)",
      "a run's result is pass (every category but execution run, every test passed), partial (none failed, some skipped) or fail; status is certified when the latest run's result is pass, partial when it passed at least 80% of the tests it ran, failing below, not_tested without runs; certified_version is the version of the latest run that passed; golden_rule_compliant and supports_file_gen are those of the latest run that ran the robustness, or the files, tests; skills load from files (.claude/skills)",
      "the scratch session's events (session.created, session.ended, skill.installed …) go to the user's event feed and webhooks as any session's do",
    ],
  },
  models: notHere("the model is chosen by the server's configuration or a WebSocket client's configure command"),
  diagnostics: {
    supported: true,
    operations: ["diagnostics.get", "diagnostics.logs", "diagnostics.streamLogs"],
    limitations: [
      "the whole server's figures, for a holder of any token: active_sessions are the sessions in memory, active_executions the runs in flight (a WebSocket client's too), connected_mcp_servers those the last runs of the sessions in memory connected, installed_skills those of .claude/skills in the runs' home; memory_usage_mb is the server process's (not its runners')",
      "besides the spec's fields: started_at, status (serving or stopping, with stopping_reason), database (status pass or fail, with the message), clients, event_streams, awaiting_approval, runner_processes and uploads (held_bytes and max_bytes: the memory uploads being read hold, out of what they may); config holds the settings that are neither secrets nor paths",
      "logs are the server's most recent records (up to 5000, or 4 MB of text), kept in memory from its start at HARNESS_LOG_LEVEL and above, their secrets hidden as the log hides them; for the shared token (HARNESS_TOKEN) or a server without tokens, not a person's own (403)",
      "level keeps that level and above; besides the spec's level and since (after that time): until (before that time), session_id and execution_id (the user's: the session's records, the execution's session's from its start to its end); the most recent first; an entry's message is the log's text line, its context the fields of the line's JSON form, and its id the stream's",
      "the logs stream sends the records logged from then on (those after Last-Event-ID first), with the same filters but since and until, and ends for a client that falls 1000 records behind",
    ],
  },
} satisfies Record<string, DomainCapability>;

export function harnessDescription(version: string, startedAt: string) {
  return {
    id: HARNESS_ID,
    name: "Harness",
    vendor: "Harness",
    description: "A self-hostable agent harness: its own agent loop or Claude Code, in sandboxes, driven over WebSocket and REST",
    execution_type: "hosted" as const,
    status: "beta" as const,
    capabilities: CAPABILITIES,
    created_at: startedAt,
    updated_at: startedAt,
    version,
  };
}
