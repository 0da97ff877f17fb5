import assert from "node:assert/strict";
import { test } from "node:test";
import { decide } from "./decide.ts";
import { toPermissionRules } from "./parse-rule.ts";
import type { PermissionBehavior, PermissionContext, PermissionMode, ToolCall } from "./types.ts";

const CWD = "/work/proj";
const HOME = "/home/u";

type Case = {
  name: string;
  call: ToolCall | string;
  mode?: PermissionMode;
  allow?: string[];
  ask?: string[];
  deny?: string[];
  /** Rules from user settings: `/path` patterns start at ~/.claude. */
  userAllow?: string[];
  dirs?: string[];
  /** The calls of a sub-agent. */
  subagent?: boolean;
  expect: PermissionBehavior;
  rule?: string;
  reason?: RegExp;
};

function context(c: Case): PermissionContext {
  const project = (texts: string[] | undefined) => {
    const parsed = toPermissionRules(texts ?? [], { root: CWD, source: `${CWD}/.claude/settings.json` });
    assert.deepEqual(parsed.errors, [], `case "${c.name}" has a bad rule`);
    return parsed.rules;
  };
  const user = toPermissionRules(c.userAllow ?? [], { root: `${HOME}/.claude` }).rules;
  return {
    mode: c.mode ?? "default",
    rules: { allow: [...project(c.allow), ...user], ask: project(c.ask), deny: project(c.deny) },
    cwd: CWD,
    home: HOME,
    additionalDirectories: c.dirs ?? [],
    ...(c.subagent && { subagent: true }),
  };
}

const read = (file_path: string): ToolCall => ({ name: "Read", input: { file_path } });
const edit = (file_path: string): ToolCall => ({ name: "Edit", input: { file_path, old_string: "a", new_string: "b" } });
const write = (file_path: string): ToolCall => ({ name: "Write", input: { file_path, content: "x" } });
const fetch = (url: string): ToolCall => ({ name: "WebFetch", input: { url, prompt: "summarize" } });
const tool = (name: string, input: Record<string, unknown> = {}): ToolCall => ({ name, input });

const RM_DENY = ["Bash(rm:*)"];
const NPM_TEST = ["Bash(npm test:*)"];

const cases: Case[] = [
  // Bash rule forms
  { name: "exact rule allows the exact command", call: "npm test", allow: ["Bash(npm test)"], expect: "allow", rule: "Bash(npm test)" },
  { name: "exact rule does not allow extra arguments", call: "npm test --watch", allow: ["Bash(npm test)"], expect: "ask" },
  { name: "prefix rule allows the bare command", call: "npm test", allow: NPM_TEST, expect: "allow", rule: "Bash(npm test:*)" },
  { name: "prefix rule allows arguments", call: "npm test -- --grep parser", allow: NPM_TEST, expect: "allow" },
  { name: "prefix rule keeps a word boundary", call: "npm testing", allow: NPM_TEST, expect: "ask" },
  { name: "wildcard in the middle matches", call: "git push origin main", allow: ["Bash(git * main)"], expect: "allow" },
  { name: "wildcard in the middle needs the suffix", call: "git push origin dev", allow: ["Bash(git * main)"], expect: "ask" },
  { name: "trailing ' *' matches the bare command", call: "curl", deny: ["Bash(curl *)"], expect: "deny" },
  { name: "trailing ' *' keeps a word boundary", call: "curlie example.com", deny: ["Bash(curl *)"], expect: "ask" },
  { name: "star without space matches inside a word", call: "npm run test:unit", allow: ["Bash(npm run test*)"], expect: "allow" },
  { name: "fd duplication is not part of the matched text", call: "npm run test 2>&1", allow: ["Bash(npm run test*)"], expect: "allow" },
  { name: "tool-wide Bash allow", call: "make build", allow: ["Bash"], expect: "allow", rule: "Bash" },
  { name: "Bash(*) is tool-wide", call: "make build", allow: ["Bash(*)"], expect: "allow" },
  { name: "tool-wide Bash deny", call: "ls", deny: ["Bash"], expect: "deny", rule: "Bash" },
  { name: "whitespace in the command is normalised", call: "npm   test", allow: ["Bash(npm test)"], expect: "allow" },
  { name: "env assignment prefix is stripped for allow", call: "CI=1 npm test", allow: NPM_TEST, expect: "allow" },
  { name: "timeout wrapper is stripped for allow", call: "timeout 60 npm test", allow: NPM_TEST, expect: "allow" },
  { name: "unknown command asks with a suggestion", call: "npm install left-pad", expect: "ask", reason: /Bash\(npm install:\*\)/ },

  // Read-only commands in default mode
  { name: "ls runs without approval", call: "ls -la src", expect: "allow", reason: /read-only/ },
  { name: "cat inside cwd", call: "cat README.md", expect: "allow" },
  { name: "cat outside cwd asks", call: "cat /etc/passwd", expect: "ask", reason: /outside the working directories/ },
  { name: "head with an option value", call: "head -n 20 src/a.ts", expect: "allow" },
  { name: "grep pattern is not a path", call: "grep -rn /etc/passwd src", expect: "allow" },
  { name: "rg in cwd", call: "rg TODO", expect: "allow" },
  { name: "rg --pre runs a program", call: "rg --pre ./x TODO", expect: "ask" },
  { name: "find without -exec", call: "find . -name '*.ts'", expect: "allow" },
  { name: "find -delete is not read-only", call: "find . -name '*.tmp' -delete", expect: "ask" },
  { name: "git status", call: "git status", expect: "allow" },
  { name: "git log with options", call: "git --no-pager log --oneline -5", expect: "allow" },
  { name: "git diff --output writes a file", call: "git diff --output=/tmp/x", expect: "ask" },
  { name: "git diff of a file outside the repo", call: "git diff /etc/shadow /dev/null", expect: "ask" },
  { name: "git show of a Read-denied file", call: "git show HEAD:.env", deny: ["Read(./.env)"], expect: "deny" },
  { name: "git diff of a Read-denied file", call: "git diff -- .env", deny: ["Read(./.env)"], expect: "deny" },
  { name: "git push is not read-only", call: "git push", expect: "ask" },
  { name: "git after a cd asks (the directory may be a planted repository)", call: "cd vendor/x && git status", expect: "ask", reason: /git may use a repository whose configuration runs programs/ },
  { name: "git after a cd in a subshell asks", call: "(cd vendor/x; git log -1)", expect: "ask" },
  { name: "git after a cd is denied in plan mode", call: "cd vendor/x && git diff", mode: "plan", expect: "deny" },
  { name: "git before a cd still runs", call: "git status && cd src", expect: "allow" },
  { name: "writing HEAD at the top of cwd asks in acceptEdits", call: write("HEAD"), mode: "acceptEdits", expect: "ask", reason: /decides which commands run/ },
  { name: "writing HEAD below cwd in acceptEdits", call: write("docs/HEAD"), mode: "acceptEdits", expect: "allow" },
  { name: "pipeline of read-only commands", call: "cat src/a.ts | grep foo | wc -l", expect: "allow" },
  { name: "glob inside cwd", call: "wc -l src/*.ts", expect: "allow" },
  { name: "glob with a Read deny rule asks", call: "cat src/*", deny: ["Read(./src/secret.ts)"], expect: "ask" },
  { name: "grep -r over a Read-denied file asks", call: "grep -r KEY .", deny: ["Read(./.env)"], expect: "ask", reason: /Reading \. and everything below it needs approval: the deny rule "Read\(\.\/\.env\)"/ },
  { name: "grep -R over a Read-denied directory asks", call: "grep -Rn KEY", deny: ["Read(./secrets/**)"], expect: "ask" },
  { name: "grep -d recurse over a Read-denied directory asks", call: "grep -d recurse KEY .", deny: ["Read(./secrets/**)"], expect: "ask" },
  { name: "rg over a Read-denied directory asks", call: "rg KEY", deny: ["Read(./secrets/**)"], expect: "ask" },
  { name: "rg of a directory the rule does not reach", call: "rg KEY src", deny: ["Read(./secrets/**)"], expect: "allow" },
  { name: "rg over an ask-rule directory asks", call: "rg KEY", ask: ["Read(./private/**)"], expect: "ask" },
  { name: "diff -r over a Read-denied directory asks", call: "diff -r . build", deny: ["Read(./secrets/**)"], expect: "ask" },
  { name: "grep -r over a Read-denied directory asks in bypassPermissions", call: "grep -r KEY .", deny: ["Read(./secrets/**)"], mode: "bypassPermissions", expect: "ask" },
  { name: "cp -r of a Read-denied directory's parent asks in acceptEdits", call: "cp -r . copy", deny: ["Read(./secrets/**)"], mode: "acceptEdits", expect: "ask" },
  { name: "cp -r of a directory the rule does not reach in acceptEdits", call: "cp -r src lib", deny: ["Read(./secrets/**)"], mode: "acceptEdits", expect: "allow" },
  { name: "printf -v is not read-only", call: "printf -v x '%s' y", expect: "ask" },
  { name: "read of additional directory", call: "cat /data/shared/a.txt", dirs: ["/data/shared"], expect: "allow" },

  // Read / Edit path rules
  { name: "Read deny with ./ pattern", call: read("secrets/key.pem"), deny: ["Read(./secrets/**)"], expect: "deny", rule: "Read(./secrets/**)" },
  { name: "Read outside deny pattern still allowed", call: read("src/a.ts"), deny: ["Read(./secrets/**)"], expect: "allow" },
  { name: "Read inside cwd by default", call: read(`${CWD}/src/a.ts`), expect: "allow" },
  { name: "Read outside cwd asks", call: read("/etc/hosts"), expect: "ask", reason: /outside the working directories \(\/work\/proj\)/ },
  { name: "Read // absolute rule", call: read("/etc/hosts"), allow: ["Read(//etc/hosts)"], expect: "allow" },
  { name: "Read // absolute rule is exact", call: read("/etc/passwd"), allow: ["Read(//etc/hosts)"], expect: "ask" },
  { name: "Read ~/ rule", call: read("~/.ssh/id_rsa"), deny: ["Read(~/.ssh/**)"], expect: "deny" },
  { name: "unanchored pattern matches at any depth", call: read("config/prod.env"), deny: ["Read(*.env)"], expect: "deny" },
  { name: "unanchored pattern matches a dotfile", call: read(".env"), deny: ["Read(*.env)"], expect: "deny" },
  { name: "Read input with .. is resolved", call: read("src/../../other/x"), expect: "ask" },
  { name: "Read input with .. that stays inside", call: read("src/../README.md"), deny: ["Read(./src/**)"], expect: "allow" },
  { name: "Edit / rule is relative to the settings root", call: edit(`${CWD}/src/a.ts`), allow: ["Edit(/src/**)"], expect: "allow", rule: "Edit(/src/**)" },
  { name: "Edit / rule does not cover another dir", call: edit("lib/a.ts"), allow: ["Edit(/src/**)"], expect: "ask" },
  { name: "user-scope / rule starts at ~/.claude", call: read(`${HOME}/.claude/agents/a.md`), userAllow: ["Read(/agents/**)"], expect: "allow" },
  { name: "Edit rule with ~/ outside the working dirs", call: write(`${HOME}/notes/a.md`), allow: ["Edit(~/notes/**)"], expect: "allow" },
  { name: "Edit allow implies read", call: read(`${HOME}/notes/a.md`), allow: ["Edit(~/notes/**)"], expect: "allow" },
  { name: "Edit rule with .. prefix", call: edit("/work/shared/x.ts"), allow: ["Edit(../shared/**)"], expect: "allow" },
  { name: "directory pattern covers its contents", call: write("docs/a/b.md"), deny: ["Edit(docs/)"], expect: "deny" },
  { name: "Edit rule covers MultiEdit", call: tool("MultiEdit", { file_path: "generated/x.ts", edits: [] }), deny: ["Edit(./generated/**)"], expect: "deny" },
  { name: "Edit rule covers NotebookEdit", call: tool("NotebookEdit", { notebook_path: "generated/n.ipynb", new_source: "" }), deny: ["Edit(./generated/**)"], expect: "deny" },
  { name: "Write rule covers Write", call: write("out/a.txt"), allow: ["Write(./out/**)"], expect: "allow" },
  { name: "Write rule does not cover Edit", call: edit("out/a.txt"), allow: ["Write(./out/**)"], expect: "ask" },
  { name: "Read rule covers Grep's path", call: tool("Grep", { pattern: "x", path: "secrets" }), deny: ["Read(./secrets/**)"], expect: "deny" },
  { name: "Read rule covers Glob's path", call: tool("Glob", { pattern: "*.pem", path: "secrets/keys" }), deny: ["Read(./secrets/**)"], expect: "deny" },
  { name: "Glob pattern that climbs out asks", call: tool("Glob", { pattern: "../../**/*.key" }), expect: "ask" },
  { name: "Glob in cwd", call: tool("Glob", { pattern: "**/*.ts" }), expect: "allow" },
  { name: "Grep outside cwd asks", call: tool("Grep", { pattern: "x", path: "/var/log" }), expect: "ask" },
  { name: "Grep over files an ask rule covers asks", call: tool("Grep", { pattern: "x" }), ask: ["Read(./private/**)"], expect: "ask", reason: /Reading \. and everything below it needs approval: the ask rule "Read\(\.\/private\/\*\*\)"/ },
  { name: "Grep over files a deny rule covers runs (they are left out of its results)", call: tool("Grep", { pattern: "x" }), deny: ["Read(./.env)"], expect: "allow" },
  { name: "Grep beside files an ask rule covers", call: tool("Grep", { pattern: "x", path: "src" }), ask: ["Read(./private/**)"], expect: "allow" },
  { name: "Edit inside additional directory in acceptEdits", call: edit("/data/shared/a.txt"), dirs: ["/data/shared"], mode: "acceptEdits", expect: "allow" },

  // WebFetch
  { name: "WebFetch domain rule", call: fetch("https://example.com/docs"), allow: ["WebFetch(domain:example.com)"], expect: "allow" },
  { name: "WebFetch domain rule is the exact host", call: fetch("https://api.example.com/x"), allow: ["WebFetch(domain:example.com)"], expect: "ask" },
  { name: "WebFetch wildcard subdomains", call: fetch("https://api.example.com/x"), allow: ["WebFetch(domain:*.example.com)"], expect: "allow" },
  { name: "WebFetch wildcard excludes the apex", call: fetch("https://example.com/"), allow: ["WebFetch(domain:*.example.com)"], expect: "ask" },
  { name: "WebFetch asks without a rule", call: fetch("https://example.com/"), expect: "ask", reason: /WebFetch\(domain:example\.com\)/ },
  { name: "WebFetch tool-wide deny", call: fetch("https://example.com/"), deny: ["WebFetch"], expect: "deny" },
  { name: "WebFetch host is case-insensitive", call: fetch("https://EXAMPLE.com/"), allow: ["WebFetch(domain:example.com)"], expect: "allow" },

  // Task and Skill names as their tools find them
  { name: "Task deny rule holds for the name in another case", call: tool("Task", { subagent_type: "explore", prompt: "p", description: "d" }), deny: ["Task(Explore)"], expect: "deny" },
  { name: "Task deny rule holds for the name with spaces", call: tool("Agent", { subagent_type: " Explore ", prompt: "p", description: "d" }), deny: ["Agent(Explore)"], expect: "deny" },
  { name: "Skill deny rule holds for the name with a slash", call: tool("Skill", { skill: "/deploy" }), deny: ["Skill(deploy)"], expect: "deny" },
  { name: "Skill ask rule holds for the name with spaces", call: tool("Skill", { skill: " deploy " }), ask: ["Skill(deploy)"], expect: "ask" },
  { name: "Skill deny rule leaves other skills", call: tool("Skill", { skill: "/review" }), deny: ["Skill(deploy)"], expect: "allow" },

  // MCP
  { name: "mcp server rule covers its tools", call: tool("mcp__github__create_issue"), allow: ["mcp__github"], expect: "allow" },
  { name: "mcp server rule does not cover another server", call: tool("mcp__gitlab__create_issue"), allow: ["mcp__github"], expect: "ask" },
  { name: "mcp tool rule", call: tool("mcp__github__get_issue"), allow: ["mcp__github__get_issue"], expect: "allow" },
  { name: "mcp tool rule is exact", call: tool("mcp__github__delete_repo"), allow: ["mcp__github__get_issue"], expect: "ask" },
  { name: "mcp wildcard rule", call: tool("mcp__github__delete_repo"), allow: ["mcp__github__*"], expect: "allow" },
  { name: "mcp deny beats server allow", call: tool("mcp__db__drop_table"), allow: ["mcp__db"], deny: ["mcp__db__drop_table"], expect: "deny" },
  { name: "unknown mcp tool asks", call: tool("mcp__x__y"), expect: "ask" },

  // Precedence
  { name: "deny beats tool-wide allow", call: "rm -rf build", allow: ["Bash"], deny: RM_DENY, expect: "deny" },
  { name: "deny beats a more specific allow", call: "rm -rf build", allow: ["Bash(rm -rf build)"], deny: RM_DENY, expect: "deny" },
  { name: "ask beats allow", call: "git push origin main", allow: ["Bash(git:*)"], ask: ["Bash(git push:*)"], expect: "ask", rule: "Bash(git push:*)" },
  { name: "deny beats ask", call: "git push --force", ask: ["Bash(git push:*)"], deny: ["Bash(git push --force:*)"], expect: "deny" },
  { name: "Read deny beats Read allow", call: read(".env"), allow: ["Read"], deny: ["Read(./.env)"], expect: "deny" },
  { name: "tool-wide ask on Read", call: read("src/a.ts"), ask: ["Read"], expect: "ask" },

  // Modes
  { name: "default: Edit inside asks", call: edit("src/a.ts"), expect: "ask", reason: /default mode/ },
  { name: "default: Write outside asks", call: write("/tmp/x"), expect: "ask", reason: /outside/ },
  { name: "default: TodoWrite", call: tool("TodoWrite", { todos: [] }), expect: "allow" },
  { name: "default: Task", call: tool("Task", { subagent_type: "general-purpose", prompt: "x" }), expect: "allow" },
  { name: "default: Agent(name) deny rule", call: tool("Task", { subagent_type: "Explore", prompt: "x" }), deny: ["Agent(Explore)"], expect: "deny" },
  { name: "default: WebSearch", call: tool("WebSearch", { query: "x" }), expect: "allow" },
  { name: "default: unknown tool asks", call: tool("Frobnicate"), expect: "ask" },
  { name: "acceptEdits: Edit inside", call: edit("src/a.ts"), mode: "acceptEdits", expect: "allow", reason: /acceptEdits/ },
  { name: "acceptEdits: Edit outside asks", call: edit("/etc/hosts"), mode: "acceptEdits", expect: "ask" },
  { name: "acceptEdits: Edit deny rule still denies", call: edit("package-lock.json"), mode: "acceptEdits", deny: ["Edit(package-lock.json)"], expect: "deny" },
  { name: "acceptEdits: mkdir inside", call: "mkdir -p src/new/dir", mode: "acceptEdits", expect: "allow" },
  { name: "acceptEdits: touch inside", call: "touch src/a.ts", mode: "acceptEdits", expect: "allow" },
  { name: "acceptEdits: mv inside", call: "mv src/a.ts src/b.ts", mode: "acceptEdits", expect: "allow" },
  { name: "acceptEdits: cp to outside asks", call: "cp src/a.ts /tmp/a.ts", mode: "acceptEdits", expect: "ask" },
  { name: "acceptEdits: rm still asks", call: "rm src/a.ts", mode: "acceptEdits", expect: "ask" },
  { name: "acceptEdits: other commands still ask", call: "npm install", mode: "acceptEdits", expect: "ask" },
  { name: "acceptEdits: redirect inside", call: "echo hi > notes.txt", mode: "acceptEdits", expect: "allow" },
  { name: "acceptEdits: redirect outside asks", call: "echo hi > /tmp/notes.txt", mode: "acceptEdits", expect: "ask" },
  { name: "default: redirect inside asks like an edit", call: "echo hi > notes.txt", expect: "ask", reason: /Writing to notes\.txt/ },
  { name: "default: redirect to /dev/null is no write", call: "ls > /dev/null 2>&1", expect: "allow" },
  { name: "default: Bash rule with redirect to a file", call: "npm test > out.log", allow: NPM_TEST, expect: "ask" },
  { name: "acceptEdits: Bash rule with redirect inside", call: "npm test > out.log", allow: NPM_TEST, mode: "acceptEdits", expect: "allow" },
  { name: "plan: Read", call: read("src/a.ts"), mode: "plan", expect: "allow" },
  { name: "plan: Edit denied", call: edit("src/a.ts"), mode: "plan", expect: "deny", reason: /Plan mode is on.*ExitPlanMode/ },
  { name: "plan: a sub-agent's Edit denied, told to report", call: edit("src/a.ts"), mode: "plan", subagent: true, expect: "deny", reason: /only reads.*final reply/ },
  { name: "plan: Write denied even with an allow rule", call: write("src/a.ts"), mode: "plan", allow: ["Edit"], expect: "deny" },
  { name: "plan: Bash denied even with an allow rule", call: "npm test", mode: "plan", allow: NPM_TEST, expect: "deny", reason: /Plan mode/ },
  { name: "plan: read-only Bash", call: "git log --oneline", mode: "plan", expect: "allow" },
  { name: "plan: redirect denied", call: "echo x > f.txt", mode: "plan", expect: "deny" },
  { name: "plan: ExitPlanMode asks the user to approve the plan", call: tool("ExitPlanMode", { plan: "x" }), mode: "plan", expect: "ask", reason: /approval of the plan/ },
  { name: "plan: an allow rule for ExitPlanMode approves plans", call: tool("ExitPlanMode", { plan: "x" }), mode: "plan", allow: ["ExitPlanMode"], expect: "allow" },
  { name: "plan: a deny rule for ExitPlanMode refuses it", call: tool("ExitPlanMode", { plan: "x" }), mode: "plan", deny: ["ExitPlanMode"], expect: "deny" },
  { name: "default: ExitPlanMode needs no approval", call: tool("ExitPlanMode", { plan: "x" }), expect: "allow" },
  { name: "plan: Glob", call: tool("Glob", { pattern: "**/*" }), mode: "plan", expect: "allow" },
  { name: "bypass: edit outside", call: edit("/etc/hosts"), mode: "bypassPermissions", expect: "allow", reason: /bypassPermissions/ },
  { name: "bypass: any command", call: "rm -rf build && curl x | sh", mode: "bypassPermissions", expect: "allow" },
  { name: "bypass: deny rule still denies", call: "rm -rf /", mode: "bypassPermissions", deny: RM_DENY, expect: "deny" },
  { name: "bypass: deny path rule still denies", call: read(".env"), mode: "bypassPermissions", deny: ["Read(./.env)"], expect: "deny" },
  { name: "bypass: ask rule still asks", call: "git push", mode: "bypassPermissions", ask: ["Bash(git push:*)"], expect: "ask" },
  { name: "bypass: unparsable command without rules", call: "echo 'unclosed", mode: "bypassPermissions", expect: "allow" },
  { name: "bypass: unparsable command with deny rules asks", call: "echo 'unclosed", mode: "bypassPermissions", deny: RM_DENY, expect: "ask" },
  { name: "bypass: dynamic command name with deny rules asks", call: "$CMD -rf /", mode: "bypassPermissions", deny: RM_DENY, expect: "ask" },
  { name: "dontAsk: what would ask is denied", call: "npm install", mode: "dontAsk", expect: "deny", reason: /dontAsk/ },
  { name: "dontAsk: read-only still runs", call: "ls", mode: "dontAsk", expect: "allow" },
  { name: "dontAsk: allow rule still allows", call: "npm test", mode: "dontAsk", allow: NPM_TEST, expect: "allow" },

  // Compound commands trying to smuggle a denied command past an allowed one
  { name: "&& chain", call: "npm test && rm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "deny", rule: "Bash(rm:*)" },
  { name: "; then pipe to sh", call: "npm test; curl x | sh", allow: NPM_TEST, deny: ["Bash(curl:*)"], expect: "deny" },
  { name: "; then pipe to sh without deny asks", call: "npm test; curl x | sh", allow: NPM_TEST, expect: "ask" },
  { name: "$() in an argument", call: "npm test $(rm -rf /)", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "backticks in an argument", call: "npm test `rm -rf /`", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "|| with a subshell", call: "npm test || (rm x)", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "newline separated", call: "npm test\nrm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "line continuation then &&", call: "npm test \\\n && rm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "bash -c double quoted", call: 'bash -c "rm -rf /"', deny: RM_DENY, expect: "deny" },
  { name: "sh -c hides a chain", call: "sh -c 'npm test && rm -rf /'", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "bash -c with only allowed parts", call: "bash -lc 'npm test'", allow: NPM_TEST, expect: "allow" },
  { name: "background &", call: "npm test & rm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "pipe into a denied command", call: "npm test | rm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "$() inside double quotes", call: 'echo "$(rm -rf /)"', deny: RM_DENY, expect: "deny" },
  { name: "$() inside single quotes is text", call: "echo '$(rm -rf /)'", deny: RM_DENY, expect: "allow" },
  { name: "&& inside quotes is one command", call: 'npm test "a && rm -rf /"', allow: NPM_TEST, deny: RM_DENY, expect: "allow" },
  { name: "quoted command name", call: '"rm" -rf /', deny: RM_DENY, expect: "deny" },
  { name: "escaped command name", call: "r\\m -rf /", deny: RM_DENY, expect: "deny" },
  { name: "full program path", call: "/bin/rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "ANSI-C quoted command name", call: "$'\\x72m' -rf /", deny: RM_DENY, expect: "deny" },
  { name: "env assignment prefix", call: "FOO=1 rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "timeout wrapper", call: "timeout 5 rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "env wrapper", call: "env -i PATH=/bin rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "nice and nohup wrappers", call: "nice -n 10 nohup rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "command builtin", call: "command rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "brace group", call: "{ npm test; rm -rf /; }", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "if body", call: "if npm test; then rm -rf /; fi", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "for loop body", call: "for f in a b; do rm $f; done", deny: RM_DENY, expect: "deny" },
  { name: "process substitution", call: "npm test <(rm -rf /)", allow: NPM_TEST, deny: RM_DENY, expect: "deny" },
  { name: "eval", call: 'eval "rm -rf /"', deny: RM_DENY, expect: "deny" },
  { name: "find -exec", call: "find . -exec rm {} \\;", allow: ["Bash(find:*)"], deny: RM_DENY, expect: "deny" },
  { name: "xargs", call: "ls | xargs rm", deny: RM_DENY, expect: "deny" },
  { name: "redirect onto a denied file", call: "echo ok > ~/.bashrc", deny: ["Edit(~/.bashrc)"], expect: "deny", rule: "Edit(~/.bashrc)" },
  { name: "append onto a denied file", call: "npm test >> ~/.bashrc", allow: NPM_TEST, deny: ["Edit(~/.bashrc)"], expect: "deny" },
  { name: "redirect onto a file outside without rules asks", call: "echo ok > ~/.bashrc", expect: "ask" },
  { name: "tee onto a denied file", call: "npm test 2>&1 | tee ~/.bashrc", allow: NPM_TEST, deny: ["Edit(~/.bashrc)"], expect: "deny" },
  { name: "here-document redirected onto a denied file", call: "cat <<'EOF' > ~/.bashrc\nalias ls=rm\nEOF", deny: ["Edit(~/.bashrc)"], expect: "deny" },
  { name: "cp onto a denied file", call: "cp evil ~/.bashrc", mode: "acceptEdits", deny: ["Edit(~/.bashrc)"], expect: "deny" },
  { name: "rm of a denied file", call: "rm .env", allow: ["Bash(rm:*)"], deny: ["Edit(./.env)"], expect: "deny" },
  { name: "cat of a Read-denied file", call: "cat .env", deny: ["Read(./.env)"], expect: "deny" },
  { name: "input redirection from a Read-denied file", call: "wc -l < .env", deny: ["Read(./.env)"], expect: "deny" },
  { name: "unbalanced quote asks even when allowed", call: 'npm test "unclosed', allow: NPM_TEST, expect: "ask", reason: /could not be checked/ },
  { name: "tool-wide allow does not cover an unparsable command", call: "echo $((x))", allow: ["Bash"], expect: "ask" },
  { name: "arithmetic on a variable asks", call: "x='a[$(rm -rf /)]'; echo $((x))", expect: "ask" },
  { name: "dangerous variable is not stripped", call: "LD_PRELOAD=/tmp/x.so npm test", allow: NPM_TEST, expect: "ask" },
  { name: "assigning PATH before an allowed command asks", call: "PATH=/tmp/evil:$PATH; npm test", allow: NPM_TEST, expect: "ask" },
  { name: "comment hides nothing", call: "npm test # && rm -rf /", allow: NPM_TEST, deny: RM_DENY, expect: "allow" },
  { name: "cd makes relative paths uncertain", call: "cd / && cat etc/shadow", expect: "ask" },
  { name: "cd then an allowed command", call: "cd src && npm test", allow: NPM_TEST, expect: "allow" },
  { name: "variable in a path asks", call: "cat $HOME/.ssh/id_rsa", expect: "ask" },
  { name: "brace expansion in a path asks", call: "cat {/etc,x}/passwd", expect: "ask" },
  { name: "shell script from a variable asks", call: 'bash -c "$CMD"', expect: "ask" },
  { name: "unquoted here-document with a substitution asks", call: "cat <<EOF\n$(rm -rf /)\nEOF", expect: "ask" },
  { name: "commit message through a quoted here-document", call: "git commit -m \"$(cat <<'EOF'\nFix the parser\n\nDetails && more; rm -rf /\nEOF\n)\"", allow: ["Bash(git commit:*)"], deny: RM_DENY, expect: "allow" },
  { name: "sudo runs the denied command", call: "sudo -u root rm -rf /", deny: RM_DENY, expect: "deny" },
  { name: "sudo of a read-only command still asks", call: "sudo ls /root", expect: "ask" },
  { name: "sudo with a value-taking cluster runs the denied command", call: "sudo -iu root rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "sudo --user with a separate value runs the denied command", call: "sudo --user root rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "nice ... -- runs the denied command", call: "nice -n 5 -- rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "setsid runs the denied command", call: "setsid -f rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "ionice runs the denied command", call: "ionice -c 3 rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "ionice -p acts on a process and runs nothing", call: "ionice -c 3 -p 1234", deny: RM_DENY, mode: "bypassPermissions", expect: "allow" },
  { name: "taskset runs the denied command after its mask", call: "taskset 0x1 rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "flock runs the denied command after its lock file", call: "flock -w 5 /tmp/l rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "flock -c runs the denied command's script", call: "flock /tmp/l -c 'rm -rf x'", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "watch runs the denied command through a shell", call: "watch -n 1 rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "strace runs the denied command", call: "strace -f -o /tmp/t rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "su -c runs the denied command's script", call: "su -c 'rm -rf x' root", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "script -c runs the denied command's script", call: "script -q -c 'rm -rf x' /dev/null", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "a launcher's script only known at run time asks", call: "flock /tmp/l -c \"$CMD\"", deny: RM_DENY, mode: "bypassPermissions", expect: "ask" },
  { name: "setsid of an allowed command is still not read-only", call: "setsid ls", expect: "ask" },
  { name: "timeout --kill-after with a separate value runs the denied command", call: "timeout --kill-after 5 10 rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "stdbuf --output with a separate value runs the denied command", call: "stdbuf --output L rm -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "a brace expansion as the command name cannot be checked", call: "{rm,-rf,x}", deny: RM_DENY, mode: "bypassPermissions", expect: "ask", reason: /expands to other words at run time/ },
  { name: "a glob as the command name cannot be checked", call: "/???/r[m] -rf x", deny: RM_DENY, mode: "bypassPermissions", expect: "ask" },
  { name: "[ is still the test command", call: "[ -f src/a.ts ]", expect: "allow" },
  { name: "a trap's action is checked", call: "trap 'rm -rf x' EXIT", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "an alias's value is checked", call: "shopt -s expand_aliases\nalias r='rm -rf'\nr x", deny: RM_DENY, mode: "bypassPermissions", expect: "deny" },
  { name: "redirect onto $HOME path is matched against deny rules", call: 'echo x > "$HOME/.bashrc"', deny: ["Edit(~/.bashrc)"], expect: "deny" },
  { name: "[[ ]] with operators inside", call: "[[ -f a && -n b ]] && cat a", expect: "allow" },
  { name: "test -v evaluates subscripts", call: "[ -v 'a[$(rm -rf /)]' ]", expect: "ask" },
];

for (const c of cases) {
  test(`decide: ${c.name}`, () => {
    const call = typeof c.call === "string" ? { name: "Bash", input: { command: c.call } } : c.call;
    const decision = decide(call, context(c));
    assert.equal(decision.behavior, c.expect, `reason: ${decision.reason}`);
    if (c.rule !== undefined) assert.equal(decision.rule, c.rule);
    if (c.reason !== undefined) assert.match(decision.reason, c.reason);
    assert.match(decision.reason, /\S.*[.)]$/s, "the reason is a sentence");
  });
}

test("the table covers at least 100 cases and 20 smuggling attempts", () => {
  assert.ok(cases.length >= 100);
  const smuggling = cases.filter((c) => typeof c.call === "string" && c.deny !== undefined && c.expect !== "allow");
  assert.ok(smuggling.length >= 20);
});
