// Claude Code's on/off switches in the environment (CLAUDE_CODE_USE_VERTEX, CLAUDE_CODE_SKIP_BEDROCK_AUTH…):
// "1", "true", "yes" or "on" turn one on; "0", "false", "no", "off" or nothing leave it off; anything
// else is a mistake worth naming rather than a guess.

type Env = Readonly<Record<string, string | undefined>>;

const ON = /^(1|true|yes|on)$/i;
const OFF = /^(0|false|no|off)?$/i;

/** Whether the switch `name` is on (a malformed value is not). */
export function switchOn(env: Env, name: string): boolean {
  return ON.test(env[name]?.trim() ?? "");
}

/** The switch `name` as set: true when on, false when turned off in words ("0", "false", "no",
 * "off"), undefined when unset, blank or malformed. */
export function switchSet(env: Env, name: string): boolean | undefined {
  const value = env[name]?.trim() ?? "";
  return ON.test(value) ? true : value !== "" && OFF.test(value) ? false : undefined;
}

/** One line for each of the switches `names` whose value is neither on nor off. */
export function switchProblems(env: Env, names: readonly string[]): string[] {
  return names.filter((name) => !ON.test(env[name]?.trim() ?? "") && !OFF.test(env[name]?.trim() ?? "")).map((name) => `${name} must be 1 or 0, got ${JSON.stringify(env[name])}`);
}
