// The secrets an http hook's configuration holds by value: its headers' values, by the rule of an
// MCP server's headers (configuredSecrets). Whatever shows a hook's failure or Claude Code's words
// hides them (hidden-secrets.ts).
import { configuredSecrets } from "@harness/llm/hidden-secrets";

/** The secrets of the http hooks' headers in `hooks`: a parsed HooksConfig or a settings file's
 * `hooks` as written (anything else, or a malformed part, adds none). */
export function httpHookSecrets(hooks: unknown): string[] {
  return Object.values(asObject(hooks)).flatMap((groups) =>
    (Array.isArray(groups) ? groups : []).flatMap((group) => {
      const list = asObject(group).hooks;
      return (Array.isArray(list) ? list : []).flatMap((hook) => {
        const { type, headers } = asObject(hook);
        return type === "http" ? configuredSecrets(stringsOf(headers), "headers") : [];
      });
    }),
  );
}

function stringsOf(value: unknown): Record<string, string> {
  return Object.fromEntries(Object.entries(asObject(value)).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
