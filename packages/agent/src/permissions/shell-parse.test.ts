import assert from "node:assert/strict";
import { test } from "node:test";
import { parseShell } from "./shell-parse.ts";
import type { SimpleCommand } from "./shell-types.ts";

/** Each command's words as values, joined by spaces. */
function commands(source: string): string[] {
  const parsed = parseShell(source);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  return parsed.commands.map((cmd: SimpleCommand) => [...cmd.assignments, ...cmd.words].map((word) => word.value).join(" "));
}

function failure(source: string): string {
  const parsed = parseShell(source);
  assert.equal(parsed.ok, false, `expected "${source}" not to parse`);
  return parsed.ok ? "" : parsed.error;
}

test("lists and pipelines split into their commands", () => {
  assert.deepEqual(commands("a && b || c; d | e |& f & g\nh"), ["a", "b", "c", "d", "e", "f", "g", "h"]);
});

test("quotes and escapes keep separators inside one word", () => {
  assert.deepEqual(commands(`echo "a && b" 'c; d' e\\;f`), ["echo a && b c; d e;f"]);
});

test("substitutions, subshells and groups are followed", () => {
  assert.deepEqual(commands("echo $(id -u) `whoami` <(ls); ( cd x; pwd ); { true; }"), ["id -u", "whoami", "ls", "echo $(id -u) `whoami` <(ls)", "cd x", "pwd", "true"]);
});

test("nested substitutions inside double quotes are followed", () => {
  assert.deepEqual(commands(`echo "x $(printf "%s" "$(date)") y"`), ["date", "printf %s $(date)", 'echo x $(printf "%s" "$(date)") y']);
});

test("if, while and for bodies are commands; keywords are not", () => {
  assert.deepEqual(commands("if test -f a; then cat a; else echo no; fi"), ["test -f a", "cat a", "echo no"]);
  // The loop's own redirection stays as a command of its own, so the file is still checked.
  assert.deepEqual(commands("while read l; do echo $l; done < f"), ["read l", "echo $l", ""]);
  assert.deepEqual(commands("for f in $(ls); do rm $f; done"), ["ls", "rm $f"]);
});

test("redirections are kept apart from the words", () => {
  const parsed = parseShell("cmd arg > out.txt 2>&1 < in.txt >> log &> all");
  assert.ok(parsed.ok);
  const [cmd] = parsed.commands;
  assert.deepEqual(cmd.words.map((w) => w.value), ["cmd", "arg"]);
  assert.deepEqual(
    cmd.redirects.map((r) => [r.op, r.target?.value]),
    [[">", "out.txt"], [">&", undefined], ["<", "in.txt"], [">>", "log"], ["&>", "all"]],
  );
});

test("assignments are separated from the command", () => {
  const parsed = parseShell("A=1 B='x y' npm test");
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.commands[0].assignments.map((w) => w.value), ["A=1", "B=x y"]);
  assert.deepEqual(parsed.commands[0].words.map((w) => w.value), ["npm", "test"]);
});

test("words record expansions and globs", () => {
  const parsed = parseShell("ls *.ts $HOME ~/x ~user {a,b} 'lit*'");
  assert.ok(parsed.ok);
  assert.deepEqual(
    parsed.commands[0].words.slice(1).map((w) => [w.value, w.dynamic, w.glob]),
    [["*.ts", false, true], ["$HOME", true, false], ["~/x", false, false], ["~user", true, false], ["{a,b}", false, true], ["lit*", false, false]],
  );
});

test("ANSI-C strings are decoded", () => {
  assert.deepEqual(commands("$'\\x72m' $'a\\tb' $'\\101'"), ["rm a\tb A"]);
});

test("here-documents: quoted bodies are text, unquoted ones without substitutions too", () => {
  assert.deepEqual(commands("cat <<'EOF'\n$(rm -rf /); `x`\nEOF\necho done"), ["cat", "echo done"]);
  assert.deepEqual(commands("cat <<-EOF\n\thello $USER\n\tEOF"), ["cat"]);
  assert.deepEqual(commands('git commit -m "$(cat <<\'EOF\'\nmsg\nEOF\n)"'), ["cat", 'git commit -m $(cat <<\'EOF\'\nmsg\nEOF\n)']);
});

test("[[ ]] keeps its operators as words", () => {
  assert.deepEqual(commands("[[ a < b && -n $(id) ]] && ls"), ["id", "[[ a < b && -n $(id) ]]", "ls"]);
});

test("comments end at the line end", () => {
  assert.deepEqual(commands("ls # && rm -rf /\npwd"), ["ls", "pwd"]);
  assert.deepEqual(commands("echo a#b"), ["echo a#b"]);
});

test("line continuations join lines", () => {
  assert.deepEqual(commands("npm \\\n test \\\n && ls"), ["npm test", "ls"]);
});

test("what cannot be followed fails with a reason", () => {
  assert.match(failure('echo "open'), /double quote/);
  assert.match(failure("echo 'open"), /single quote/);
  assert.match(failure("echo $(ls"), /never closed/);
  assert.match(failure("echo `ls"), /backtick/);
  assert.match(failure("(ls"), /never closed/);
  assert.match(failure("ls )"), /unexpected/);
  assert.match(failure("case x in a) ls;; esac"), /not supported/);
  assert.match(failure("f() { rm -rf /; }"), /function/);
  assert.match(failure("(( i++ ))"), /not supported/);
  assert.match(failure("echo $((x + 1))"), /arithmetic/);
  assert.match(failure("echo ${!name}"), /not supported/);
  assert.match(failure("echo ${a[$(id)]}"), /not supported/);
  assert.match(failure("cat <<EOF\n$(id)\nEOF"), /here-document/);
  assert.match(failure("cat <<EOF\nno end"), /not terminated/);
  assert.match(failure("echo >"), /no target/);
});

test("plain arithmetic and parameter forms parse", () => {
  assert.deepEqual(commands("echo $((1 + 2)) ${HOME} ${x:-default} ${#x} ${x%.ts} ${x:1:2}"), ["echo $((1 + 2)) ${HOME} ${x:-default} ${#x} ${x%.ts} ${x:1:2}"]);
});
