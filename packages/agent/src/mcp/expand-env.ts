// `${VAR}` and `${VAR:-default}` expansion, as Claude Code applies it to .mcp.json values. A bare
// `$VAR` is left alone; an unset variable without a default stays as literal text and is reported.

export type Expanded = { value: string; missing: string[] };

const REFERENCE = /\$\{([^}:]+)(?::-([^}]*))?\}/g;

export function expandEnv(text: string, env: Readonly<Record<string, string | undefined>>): Expanded {
  const missing: string[] = [];
  const value = text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const set = env[name];
    // As in the shell, `:-` also replaces a variable that is set but empty.
    if (fallback !== undefined) return set ? set : fallback;
    if (set !== undefined) return set;
    missing.push(name);
    return whole;
  });
  return { value, missing };
}
