// Tokens of their own for the people who use a server (HARNESS_TOKENS_FILE): each lets its holder in
// as one user only, where the shared HARNESS_TOKEN lets its holder act as any user. The file has a
// line per token, "<user> <token>"; blank lines and lines starting with "#" are skipped. A user may
// have several tokens (one per device); a token belongs to one user.
import { readFileSync } from "node:fs";
import { tokenMatches } from "./auth.ts";
import { IdSchema } from "../ids.ts";

/** The users' tokens: token → user. */
export type UserTokens = ReadonlyMap<string, string>;

/** Reads and checks the file; throws naming the variable, the file, the line and what is wrong. */
export function readUserTokens(file: string, minLength: number): UserTokens {
  return parseUserTokens(readTokensText(file), file, minLength);
}

/** The file's text; throws naming the variable and the file when it cannot be read. */
export function readTokensText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`HARNESS_TOKENS_FILE: cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Checks the text of `file`; throws naming the variable, the file, the line and what is wrong. */
export function parseUserTokens(text: string, file: string, minLength: number): UserTokens {
  const tokens = new Map<string, string>();
  const lineOf = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `HARNESS_TOKENS_FILE ${file} line ${index + 1}`;
    const fields = line.split(/\s+/);
    if (fields.length !== 2) throw new Error(`${where}: give a user and a token, separated by spaces`);
    const [user, token] = fields;
    const id = IdSchema.safeParse(user);
    // The first field as long as a token may be one (the fields swapped), which must never be echoed
    // into the log: the problem is said without it, both ways it may be.
    if (token.length < minLength && user.length >= minLength) {
      throw new Error(`${where}: the token (the second field) has ${token.length} characters: use at least ${minLength} (e.g. openssl rand -hex 32); if the fields are the other way round, give the user first, then the token`);
    }
    if (!id.success) throw new Error(`${where}: user ${JSON.stringify(user)} ${id.error.issues[0].message}`);
    if (!/^[\x21-\x7e]+$/.test(token)) throw new Error(`${where}: ${user}'s token must be printable ASCII without spaces`);
    if (token.length < minLength) throw new Error(`${where}: ${user}'s token has ${token.length} characters: use at least ${minLength} (e.g. openssl rand -hex 32)`);
    const earlier = lineOf.get(token);
    if (earlier !== undefined) throw new Error(`${where}: the token of line ${earlier} again (a token belongs to one user)`);
    lineOf.set(token, index + 1);
    tokens.set(token, user);
  });
  return tokens;
}

/** Who a request's token lets in: `{}` for the shared token (any user), `{ user }` for a user's
 * token, undefined for none of them. Every token is compared, in constant time each, so that the
 * time taken says nothing of which one came close. */
export function tokenHolder(provided: string | undefined, shared: string | undefined, users: UserTokens): { user?: string } | undefined {
  let found: { user?: string } | undefined;
  if (shared !== undefined && tokenMatches(shared, provided)) found = {};
  for (const [token, user] of users) if (tokenMatches(token, provided) && !found) found = { user };
  return found;
}
