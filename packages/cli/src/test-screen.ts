// A test helper: what a terminal `columns` wide (and `height` rows high: the rows above its top
// scrolled off, kept above it as a terminal's scrollback keeps them) shows after the bytes a
// program wrote to it. It
// knows printable characters (each grapheme cluster one character, as terminals that know them
// draw it: emoji sequences and CJK two columns), \r, \n, backspace, tab,
// erasing (ESC[K, ESC[J and their variants) and cursor moves (ESC[nA/B/C/D/G/H, ESC D/M); other
// escape sequences (colours, operating system commands among them) are skipped. A character written past the last column
// wraps, as xterm does; so does a wide one that does not fit in what is left of the row.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { columns as charColumns } from "./display/render.ts";

const segmenter = new Intl.Segmenter();
/** The grapheme cluster that starts at `from` in `bytes` (control characters end it). */
function clusterAt(bytes: string, from: number): string {
  const text = /^[^\x00-\x1f\x7f]+/.exec(bytes.slice(from, from + 64))?.[0] ?? bytes[from];
  return segmenter.segment(text)[Symbol.iterator]().next().value?.segment ?? text;
}

/** The rows of the screen after `bytes` (those scrolled off first), trailing spaces and trailing
 * empty rows removed. */
export function renderScreen(bytes: string, columns = 80, height = Infinity): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  /** The screen's first row: the cursor goes no higher. */
  let top = 0;
  let col = 0;
  /** The cursor stopped past the last column: the next character goes to the next row. */
  let pendingWrap = false;
  const at = (r: number) => (rows[r] ??= []);
  const down = () => {
    row++;
    at(row);
    top = Math.max(top, row - height + 1);
  };
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    if (ch === "\x1b") {
      const csi = /^\x1b\[([?>]?)([\d;]*)([@-~])/.exec(bytes.slice(i));
      if (csi) {
        i += csi[0].length - 1;
        if (csi[1]) continue;
        const n = Number(csi[2].split(";")[0] || "1");
        const arg = Number(csi[2] || "0");
        pendingWrap = false;
        switch (csi[3]) {
          case "A": row = Math.max(top, row - n); break;
          case "B": row = Math.min(row + n, top + height - 1); at(row); break;
          case "C": col = Math.min(columns - 1, col + n); break;
          case "D": col = Math.max(0, col - n); break;
          case "G": col = Math.min(columns - 1, n - 1); break;
          case "H": [row, col] = csi[2] ? csi[2].split(";").map((v) => Math.max(0, Number(v || "1") - 1)) : [0, 0]; row += top; break;
          case "K": {
            const line = at(row);
            if (arg === 0) line.length = Math.min(line.length, col);
            else if (arg === 1) line.fill(" ", 0, col + 1);
            else line.length = 0;
            break;
          }
          case "J":
            if (arg === 0) {
              at(row).length = Math.min(at(row).length, col);
              rows.length = row + 1;
            } else rows.splice(0, rows.length, ...rows.map(() => []));
            break;
        }
        continue;
      }
      // An operating system command (a title, a notification) shows nothing: up to its BEL or ST.
      const osc = /^\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/.exec(bytes.slice(i));
      if (osc) {
        i += osc[0].length - 1;
        continue;
      }
      const next = bytes[i + 1];
      if (next === "D") down();
      else if (next === "M") row = Math.max(top, row - 1);
      i += 1;
      continue;
    }
    if (ch === "\r") {
      col = 0;
      pendingWrap = false;
    } else if (ch === "\n") {
      down();
      pendingWrap = false;
    } else if (ch === "\b") {
      col = Math.max(0, col - 1);
      pendingWrap = false;
    } else if (ch === "\t") {
      col = Math.min(columns - 1, (Math.floor(col / 8) + 1) * 8);
    } else if (ch >= " " && ch !== "\x7f") {
      const char = clusterAt(bytes, i);
      i += char.length - 1;
      const width = charColumns(char);
      const line = at(row);
      if (width === 0) {
        if (col > 0) line[col - 1] += char;
        continue;
      }
      // A wide character that does not fit in the row goes to the next one.
      if (pendingWrap || col + width > columns) {
        down();
        col = 0;
        pendingWrap = false;
      }
      const cells = at(row);
      while (cells.length < col) cells.push(" ");
      cells[col] = char;
      if (width === 2) cells[col + 1] = "";
      if (col + width >= columns) {
        col = columns - 1;
        pendingWrap = true;
      } else col += width;
    }
  }
  const shown = rows.map((line) => Array.from(line, (c) => c ?? " ").join("").trimEnd());
  while (shown.length > 0 && shown.at(-1) === "") shown.pop();
  return shown;
}

/** `line` (a shell command) run in a terminal of its own, `columns` wide and 24 rows, through
 * script(1); killed after a minute or when the test ends. `type` sends keys as a terminal would;
 * `sees` waits for the bytes written to match, `shows` for the rows on the screen, `bottom` for the
 * last of them. */
export function inTerminal(t: { after(fn: () => unknown): void }, line: string, options: { cwd: string; env: NodeJS.ProcessEnv; columns: number }) {
  // A chat at a terminal keeps the prompts typed (chat/input/history.ts): never in the user's own
  // configuration directory; in one of the test's unless the test gives one, or a home of its own.
  const env = { ...options.env };
  if (!env.CLAUDE_CONFIG_DIR && (!env.HOME || env.HOME === homedir())) {
    const dir = (env.CLAUDE_CONFIG_DIR = mkdtempSync(join(tmpdir(), "harness-terminal-config-")));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
  }
  const child = spawn("script", ["-qfec", `stty cols ${options.columns} rows 24; ${line}`, "/dev/null"], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (screen += d));
  const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const closed = once(child, "close").then(([code]) => (clearTimeout(stuck), code as number | null));
  t.after(() => child.kill("SIGKILL"));
  const rows = () => renderScreen(screen, options.columns);
  const until = async (met: () => boolean, what: () => string): Promise<void> => {
    for (let waited = 0; !met(); waited += 20) {
      if (waited > 20_000) throw new Error(what());
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    child,
    type: (keys: string) => child.stdin.write(keys),
    screen: () => screen,
    rows,
    closed,
    sees: (pattern: RegExp) => until(() => pattern.test(screen), () => `the terminal never showed ${pattern}; it shows:\n${screen}`),
    shows: (pattern: RegExp) => until(() => pattern.test(rows().join("\n")), () => `the terminal never showed ${pattern}; it shows:\n${rows().join("\n")}`),
    /** Waits until no row shows `pattern` (what a state drew is taken off). */
    gone: (pattern: RegExp) => until(() => !pattern.test(rows().join("\n")), () => `the terminal still shows ${pattern}:\n${rows().join("\n")}`),
    bottom: (pattern: RegExp) => until(() => pattern.test(rows().at(-1) ?? ""), () => `the last row never showed ${pattern}; the terminal shows:\n${rows().join("\n")}`),
  };
}
