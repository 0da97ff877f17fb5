// The ids a user and a session are named by. They name directories and database rows on the server,
// so they are kept to a safe alphabet. Free of zod: a client checks them before its WebSocket
// handshake, whose refusal (400, with the reason) neither browsers nor Node let it read.

export const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;
export const ID_RULE = "must be 1 to 128 letters, digits, '.', '_' or '-'";
export const DOT_ID_RULE = "must not be '.' or '..'";

/** What is wrong with `id` as a user or session id, or undefined when nothing is. */
export function idProblem(id: unknown): string | undefined {
  if (id === undefined) return "is required";
  if (typeof id !== "string") return "must be a string";
  if (!ID_PATTERN.test(id)) return ID_RULE;
  if (id === "." || id === "..") return DOT_ID_RULE;
  return undefined;
}
