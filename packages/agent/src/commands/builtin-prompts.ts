// Built-in commands that are prompts, as Claude Code has /init: typed as /name, their text is what
// the model gets. A user's own command or skill of the same name wins over them.

export type BuiltinPrompt = { name: string; usage: string; description: string; prompt(args: string): string };

const INIT = `Look through this repository and write a CLAUDE.md at its root: the notes an agent working here needs and cannot quickly work out for itself. It is read at the start of every conversation, so keep it short and specific to this project.

Cover:
1. The commands that matter: install, build, lint, type check, the whole test suite and a single test (file or name), running the project locally.
2. The architecture in a few paragraphs: the main parts, where each lives, how a request or piece of data flows through them, and what is non-obvious (generated code, a second build, where configuration comes from).
3. Conventions the code follows that a newcomer would get wrong: naming, error handling, how tests are written, anything the linters do not enforce.

Read the README, the package manifests and build files, CI configuration, and any existing agent instructions (.cursorrules, .cursor/rules/, .github/copilot-instructions.md, AGENTS.md) and keep what still holds. Do not list every file, do not give generic advice ("write tests", "keep functions small"), and do not invent anything you did not see.

If a CLAUDE.md already exists, improve it instead of starting over: fix what is out of date and add what is missing.`;

export const BUILTIN_PROMPTS: readonly BuiltinPrompt[] = [
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
