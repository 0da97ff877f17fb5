// Reading the server's JSON answers without a schema library: a field check is a function that says
// what is wrong with a value (undefined: nothing).

export type Check = (value: unknown) => string | undefined;
export type Fields = Record<string, Check>;
/** An answer that is one object with these fields, or an array of them. */
export type Shape = { object: Fields } | { array: Fields };

/** The body of `response` as JSON, or `problem` saying why it is none. */
export async function answerOf(response: Response, call: string): Promise<{ json?: unknown; problem?: string }> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new Error(`${call}: the server's answer broke off: ${(error as Error).message}`, { cause: error });
  }
  try {
    return { json: JSON.parse(text) };
  } catch {
    return { problem: `is not JSON: ${JSON.stringify(text.slice(0, 100))}` };
  }
}

/** `value` with only the fields of `shape` (those not undefined); throws an Error naming each field
 * that is wrong, as `call`'s answer. */
export function check(call: string, value: unknown, shape: Shape): unknown {
  const problems: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const pick = (item: unknown, fields: Fields, where: string) => {
    if (!isObject(item)) {
      problems.push(`${where || "the answer"}: must be an object`);
      return undefined;
    }
    const picked: Record<string, unknown> = {};
    for (const [name, fieldCheck] of Object.entries(fields)) {
      const problem = fieldCheck(item[name]);
      if (problem) problems.push(`${where ? `${where}.` : ""}${name}: ${problem}`);
      else if (item[name] !== undefined) picked[name] = item[name];
    }
    return picked;
  };
  let result: unknown;
  if ("object" in shape) result = pick(value, shape.object, "");
  else if (!Array.isArray(value)) problems.push("the answer: must be an array");
  else result = value.map((item, index) => pick(item, shape.array, `[${index}]`));
  if (problems.length > 0) throw new Error(`${call}: the server's answer is not what it should be: ${problems.join("; ")}`);
  return result;
}
