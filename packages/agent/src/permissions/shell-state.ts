import type { SimpleCommand } from "./shell-types.ts";

export type Heredoc = { delimiter: string; quoted: boolean; stripTabs: boolean };

/** A parse in progress over one source text. */
export type State = {
  src: string;
  pos: number;
  /** Shared with nested parsers: every command found anywhere, in source order of completion. */
  commands: SimpleCommand[];
  heredocs: Heredoc[];
  depth: number;
  /** Parses a command list up to `end` (or the end of the text): how words parse `$(…)`. */
  parseList: (st: State, end: ")" | null) => void;
};

export class ShellSyntaxError extends Error {}

export function fail(message: string): never {
  throw new ShellSyntaxError(message);
}

/** Characters that end an unquoted word. */
export const META: ReadonlySet<string> = new Set([" ", "\t", "\n", ";", "&", "|", "<", ">", "(", ")"]);
