// Built-in commands that are prompts, as Claude Code has /init, /review and /security-review: typed
// as /name, their text is what the model gets. A user's own command or skill of the same name wins
// over them.

export type BuiltinPrompt = { name: string; usage: string; description: string; prompt(args: string): string };

const INIT = `Look through this repository and write a CLAUDE.md at its root: the notes an agent working here needs and cannot quickly work out for itself. It is read at the start of every conversation, so keep it short and specific to this project.

Cover:
1. The commands that matter: install, build, lint, type check, the whole test suite and a single test (file or name), running the project locally.
2. The architecture in a few paragraphs: the main parts, where each lives, how a request or piece of data flows through them, and what is non-obvious (generated code, a second build, where configuration comes from).
3. Conventions the code follows that a newcomer would get wrong: naming, error handling, how tests are written, anything the linters do not enforce.

Read the README, the package manifests and build files, CI configuration, and any existing agent instructions (.cursorrules, .cursor/rules/, .github/copilot-instructions.md, AGENTS.md) and keep what still holds. Do not list every file, do not give generic advice ("write tests", "keep functions small"), and do not invent anything you did not see.

If a CLAUDE.md already exists, improve it instead of starting over: fix what is out of date and add what is missing.`;

const REVIEW = `Review a change to this repository as a careful senior reviewer would, and change no file.

Which change: WHAT. For a pull request, read it with \`gh pr view\` and \`gh pr diff\` (with its number); for a branch, diff it against the merge base with the default branch (\`git merge-base\`), uncommitted changes included. Read the surrounding code as far as you need to judge the change, not only the diff.

Report, most important first, each with its file and line:
1. Bugs: wrong behaviour, unhandled cases, broken error handling, races, resource leaks.
2. Risks: security problems, data loss, breaking changes for callers or users, performance traps.
3. Gaps: missing or weak tests for what changed, docs that no longer hold.
4. Then, briefly, what could be simpler or more consistent with the code around it.

Say plainly when you find nothing serious. Do not pad the review with praise or with style points a formatter would settle.`;

const SECURITY_REVIEW = `Review the pending changes of this repository for security problems, and change no file.

The changes: the current branch against the merge base with the default branch (\`git merge-base\`), uncommitted changes included. Read the code around them as far as you need to follow where untrusted input goes.

Look for what an attacker could use: injection (SQL, shell, template, path traversal), broken authentication or authorization checks, secrets in code or logs, unsafe deserialization, server-side request forgery, cross-site scripting, weak cryptography or randomness, and dependencies added with known problems.

Report only problems you are confident are real and reachable, each with its file and line, how it could be exploited, how severe it is, and how to fix it. Leave out theoretical issues, denial of service by volume, and findings in tests. Say plainly when you find none.`;

export const BUILTIN_PROMPTS: readonly BuiltinPrompt[] = [
  {
    name: "review",
    usage: "/review [pull request number or branch]",
    description: "Review a pull request, or the current branch's changes, for bugs, risks and gaps",
    prompt: (args) => REVIEW.replace("WHAT", () => (args.trim() ? `"${args.trim()}"` : "the current branch's changes")),
  },
  {
    name: "security-review",
    usage: "/security-review",
    description: "Review the current branch's changes for security problems",
    prompt: () => SECURITY_REVIEW,
  },
  {
    name: "init",
    usage: "/init [what to focus on]",
    description: "Write (or improve) a CLAUDE.md for this project: its commands, architecture and conventions",
    prompt: (args) => (args.trim() ? `${INIT}\n\nFocus on: ${args.trim()}` : INIT),
  },
];

export function builtinPrompt(name: string): BuiltinPrompt | undefined {
  return BUILTIN_PROMPTS.find((candidate) => candidate.name === name);
}
