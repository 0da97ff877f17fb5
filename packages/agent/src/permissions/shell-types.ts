/** One shell word. */
export type Word = {
  /** As written, quotes included. */
  raw: string;
  /** After quote removal and escape processing; expansions are left as written. */
  value: string;
  /** Contains a parameter, command or arithmetic expansion: its value is only known at run time. */
  dynamic: boolean;
  /** Contains an unquoted glob or brace expansion: it may stand for other or several words. */
  glob: boolean;
};

export type Redirect = {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<`, `<>`, `<<<`, `<<`, `<<-`, `>&`, `<&`. */
  op: string;
  /** The file (or here-string); absent for here-documents and descriptor duplication (`2>&1`). */
  target?: Word;
};

export type SimpleCommand = {
  /** Leading `NAME=value` words. */
  assignments: Word[];
  words: Word[];
  redirects: Redirect[];
};

export type ShellParse = { ok: true; commands: SimpleCommand[] } | { ok: false; error: string };
