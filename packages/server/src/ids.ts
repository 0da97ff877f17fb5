// Identifiers from outside (user and session ids): they name directories and database rows, so
// they are kept to a safe alphabet.
import { z } from "zod";
import { DOT_ID_RULE, ID_PATTERN, ID_RULE } from "@harness/protocol/client-side";

export const IdSchema = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") })
  .regex(ID_PATTERN, ID_RULE)
  .refine((id) => id !== "." && id !== "..", DOT_ID_RULE);

/** One session as a single map key; ids never hold "\0", so split("\0") gives them back. */
export function sessionKey(userId: string, sessionId: string): string {
  return `${userId}\0${sessionId}`;
}

/** Why a query parameter given as `values` is refused: one that names something is given once (of
 * two, which would be meant?). */
export function repeatedParameter(name: string, values: readonly string[]): string | undefined {
  return values.length > 1 ? `${name}: is given ${values.length} times in the query` : undefined;
}
