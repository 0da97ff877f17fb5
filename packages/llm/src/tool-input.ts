// A tool call's input arrives as JSON text, streamed in pieces; the whole of it must be an object.

/** The parsed input: an empty object for empty text, undefined when the text is not a JSON object. */
export function parseToolInput(json: string): Record<string, unknown> | undefined {
  if (json.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return undefined;
  } catch {
    return undefined;
  }
}

/** What a tool call is answered with when its input was not a JSON object. */
export function badInputMessage(name: string, json: string): string {
  return `The input of this ${name} call was not a valid JSON object, so the tool did not run: ${previewJson(json)}. If the reply was cut off by the output token limit, send the call again with less in it (write a large file in parts, for example).`;
}

/** The text quoted for an error message, cut after 200 characters. */
function previewJson(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}
