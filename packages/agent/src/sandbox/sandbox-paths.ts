// How a path reaches the sandbox library, which reads any `*`, `?`, `[` or `]` in a path as a
// pattern and knows no escapes: a path that names one file goes marked as a name, and a pattern
// spells what is to be taken as itself as a set of that one character.
import path from "node:path";

/** An entry of the sandbox's path lists, shaped as the library's FilesystemPathEntry: a string is
 * a pattern where it holds `*`, `?`, `[` or `]` and a name otherwise; a marked entry is a name
 * whatever it holds. */
export type SandboxPath = string | { path: string; literal: true };

const LIBRARY_WILDCARD = /[*?[\]]/;

/** Whether the library reads the string `spelled` as a pattern. */
export function isLibraryPattern(spelled: string): boolean {
  return LIBRARY_WILDCARD.test(spelled);
}

/** `file` as the one path it names: marked where the library would read it as a pattern, a plain
 * string otherwise (which keeps the lists readable). */
export function named(file: string): SandboxPath {
  return isLibraryPattern(file) ? { path: file, literal: true } : file;
}

/** The path of an entry, whichever way it is spelled. */
export function entryPath(entry: SandboxPath): string {
  return typeof entry === "string" ? entry : entry.path;
}

/** A library pattern for what `pattern` matches below the directory `base`, which is taken as the
 * name it is. `pattern` is in the library's own syntax (no escapes) unless `escapes` is set, when a
 * backslash makes the next character plain, as in a permission rule (see globToRegExp). */
export function patternBelow(base: string, pattern: string, escapes = false): string {
  return path.join(plainInPattern(base), escapes ? withoutEscapes(pattern) : pattern);
}

/** `text` spelled so that the library's pattern matches it alone: `[*]`, `[?]` and `[[]` are sets
 * of that one character; a `]` that no `[` opens is plain already. */
function plainInPattern(text: string): string {
  return text.replace(/[*?[]/g, "[$&]");
}

/** A permission rule's glob with its escaped characters spelled as plainInPattern does. A class
 * (`[a-z]`) is copied as it is, backslashes and all, as globToRegExp reads it; a `[` that closes no
 * class is plain. */
function withoutEscapes(glob: string): string {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const end = glob[i] === "[" ? glob.indexOf("]", i + 2) : -1;
    if (glob[i] === "\\" && i + 1 < glob.length) out += plainInPattern(glob[++i]);
    else if (end !== -1) {
      out += glob.slice(i, end + 1);
      i = end;
    } else out += glob[i] === "[" ? "[[]" : glob[i];
  }
  return out;
}
