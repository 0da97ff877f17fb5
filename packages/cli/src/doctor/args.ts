// `harness doctor [--cwd DIR] [--json] [--settings FILE|JSON]`: pure, argv in, the command or a
// usage error out.

export type DoctorCommand = { kind: "doctor"; cwd?: string; json?: true; settings?: string };

export function parseDoctor(argv: readonly string[]): DoctorCommand | { kind: "help"; topic: "doctor" } | { kind: "usage-error"; message: string; topic: "doctor" } {
  const command: DoctorCommand = { kind: "doctor" };
  const fail = (message: string) => ({ kind: "usage-error" as const, message, topic: "doctor" as const });
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag === "--help" || flag === "-h") return { kind: "help", topic: "doctor" };
    if (flag === "--json") {
      if (inline !== undefined) return fail("--json takes no value");
      command.json = true;
      continue;
    }
    if (flag === "--cwd" || flag === "--settings") {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") return fail(`${flag} needs a value`);
      command[flag === "--cwd" ? "cwd" : "settings"] = value;
      continue;
    }
    return fail(arg.startsWith("-") ? `unknown option "${flag}"` : `unexpected argument "${arg}"`);
  }
  return command;
}
