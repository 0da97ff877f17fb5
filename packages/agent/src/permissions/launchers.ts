// Programs that start another command (setsid rm …, flock f -c 'rm …', watch rm …): deny and ask
// rules must see that command, in every mode, as they see it through sudo or xargs.
import type { Word } from "./shell-types.ts";

type Launcher = {
  /** Options whose value is the next word (`-n 5`); `--opt=value` needs no entry. */
  values?: readonly string[];
  /** Words between the options and the command (flock's lock file, taskset's mask). */
  operands?: number;
  /** Options whose value is a shell script the launcher runs (`flock f -c 'rm x'`, `su -c`). */
  scriptOptions?: readonly string[];
  /** Options that make it act on running processes instead: then it starts nothing. */
  pidOptions?: readonly string[];
  /** Its command words are joined and run by a shell (watch), not run as they are. */
  joinsAsScript?: boolean;
  /** Without a script option it starts a shell to talk to (su, script): nothing to check. */
  scriptOnly?: boolean;
};

const LAUNCHERS: Record<string, Launcher> = {
  setsid: {},
  ionice: { values: ["-c", "-n", "--class", "--classdata"], pidOptions: ["-p", "-P", "-u", "--pid", "--pgid", "--uid"] },
  taskset: { operands: 1, pidOptions: ["-p", "--pid"] },
  chrt: { operands: 1, pidOptions: ["-p", "--pid"] },
  flock: { values: ["-w", "--timeout", "-E", "--conflict-exit-code"], operands: 1, scriptOptions: ["-c", "--command"] },
  watch: { values: ["-n", "--interval", "-q", "--equexit"], joinsAsScript: true },
  strace: { values: ["-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X"] },
  ltrace: { values: ["-e", "-o", "-p", "-s", "-u", "-a", "-n", "-A", "-D", "-F", "-L"] },
  su: { values: ["-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"], scriptOptions: ["-c", "--command"], scriptOnly: true },
  script: {
    values: ["-E", "--echo", "-I", "--log-in", "-O", "--log-out", "-B", "--log-io", "-T", "--log-timing", "-m", "--logging-format", "-o", "--output-limit"],
    scriptOptions: ["-c", "--command"],
    scriptOnly: true,
  },
};

/** What a launcher starts: the command's words, or a script, or nothing (it starts no command, or
 * acts on other processes); `unknown` when that is only known at run time. Undefined when `name`
 * is no launcher. */
export function launched(name: string, args: readonly Word[]): { words?: Word[]; script?: string; unknown?: string } | undefined {
  const spec = LAUNCHERS[name];
  if (spec === undefined) return undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i];
    const text = word.value;
    if (text === "--") {
      i++;
      break;
    }
    if (!text.startsWith("-") || text === "-") break;
    if (spec.pidOptions?.includes(text)) return {};
    const inline = /^(--[^=]+)=/.exec(text)?.[1];
    if (spec.scriptOptions?.includes(inline ?? text)) {
      const value = inline ? word : args[i + 1];
      if (value === undefined) return {};
      if (value.dynamic) return { unknown: `the script given to ${name} is only known at run time` };
      return { script: inline ? text.slice(inline.length + 1) : value.value };
    }
    if (spec.values?.includes(text)) i++;
  }
  if (spec.scriptOnly) return {};
  i += spec.operands ?? 0;
  // `flock FILE -c 'script'`: the script option may follow the lock file.
  const after = args[i];
  if (after && spec.scriptOptions?.includes(after.value)) {
    const value = args[i + 1];
    if (value === undefined) return {};
    if (value.dynamic) return { unknown: `the script given to ${name} is only known at run time` };
    return { script: value.value };
  }
  const words = args.slice(i);
  if (words.length === 0) return {};
  if (!spec.joinsAsScript) return { words };
  if (words.some((w) => w.dynamic)) return { unknown: `the command given to ${name} is only known at run time` };
  return { script: words.map((w) => w.value).join(" ") };
}
