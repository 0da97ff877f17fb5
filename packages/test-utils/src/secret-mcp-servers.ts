// MCP servers configured with secrets in each place users put them (arguments, env, headers), for
// tests that a log shows none of them: "leaky", a stdio server that echoes them on stderr and
// exits, and "remote", an http one that nothing answers. Every secret holds "s3cret".
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** What "leaky" is started with: flags with secret values, and one that has none. */
export const SECRET_MCP_ARGS = [
  "--api-key",
  "argkey-s3cret-1",
  "--token=argtoken-s3cret-2",
  "-H",
  "Authorization: Bearer argbearer-s3cret-3",
  "--header",
  "X-Api-Key:argheader-s3cret-4",
  "--verbose",
];

/** The servers' entries of `mcpServers`, with "leaky"'s script written in `dir`. Its stderr says
 * its arguments, its env's SERVICE_CREDENTIAL (a name that does not say it is a secret), the
 * settings' MY_SERVICE_TOKEN and the process's DEPLOY_PASSWORD if it was given them, and the
 * remote server's header values, as a server's error might. */
export function secretMcpServers(dir: string): Record<string, unknown> {
  const script = join(dir, "leaky-server.mjs");
  const said = [
    "`args: ${process.argv.slice(2).join(' ')}`",
    "`credential: ${process.env.SERVICE_CREDENTIAL}`",
    "`settings token: ${process.env.MY_SERVICE_TOKEN}`",
    "`password: ${process.env.DEPLOY_PASSWORD}`",
    "'upstream refused hdrkey-s3cret-5 and Bearer hdrbearer-s3cret-6'",
  ];
  writeFileSync(script, `for (const line of [${said.join(", ")}]) process.stderr.write(line + "\\n");\nprocess.exit(1);\n`);
  return {
    leaky: { command: process.execPath, args: [script, ...SECRET_MCP_ARGS], env: { SERVICE_CREDENTIAL: "envcred-s3cret-7", LOG_LEVEL: "1" } },
    remote: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { "X-Api-Key": "hdrkey-s3cret-5", Authorization: "Bearer hdrbearer-s3cret-6" } },
  };
}

/** Settings whose env holds a secret by name, which "leaky" echoes. */
export const SECRET_SETTINGS_ENV = { MY_SERVICE_TOKEN: "settingstoken-s3cret-8" };
/** A secret of the process's environment by name, which "leaky" echoes. */
export const SECRET_PROCESS_ENV = { DEPLOY_PASSWORD: "deploypass-s3cret-9" };
