// Credentials go in HTTP headers, where a line break or a control character is refused by fetch
// with an error that quotes the whole header, credential and all. They are checked first, so that
// the error names where the credential came from and never says it.

/** Visible ASCII, no spaces: what every key and token of AWS and Google is made of. */
const TOKEN = /^[\x21-\x7e]+$/;

/** Whether `value` can be sent as a credential in a header. */
export function isHeaderToken(value: string): boolean {
  return TOKEN.test(value);
}

/** The words after a credential's name when it is not one (isHeaderToken). */
export const NOT_A_HEADER_TOKEN = "holds a character that cannot go in an HTTP header (a line break, a space or a control character); it was not sent";
