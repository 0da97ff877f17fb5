/** What a value from a request or a flag is, for a message that says it is not what was expected:
 * its JSON when it is a scalar, else "a list" or "an object" (never the whole of it). */
export function describeValue(value: unknown): string {
  return value === undefined ? "nothing" : value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : JSON.stringify(value);
}
