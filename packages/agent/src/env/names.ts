// What no program can be given in its environment: a variable whose name is empty or holds "=" or
// a NUL character (the settings' `env` and an MCP server's `env` are checked by the same rule).
export const ENV_NAME_RULE = 'must not be empty or hold "=" or a NUL character';

export function isEnvName(name: string): boolean {
  return /^[^=\0]+$/.test(name);
}
