// The object syntax of PDF (ISO 32000 §7.3): numbers, names, strings, arrays, dictionaries and
// references, read from a file's bytes. Enough of it to walk the cross-reference data and the page
// tree; the contents of strings are not decoded, only kept as written.

export class PdfError extends Error {}

export type PdfRef = { kind: "ref"; num: number; gen: number };
export type PdfName = { kind: "name"; name: string };
/** A string as written in the file, delimiters included (its contents are not decoded). */
export type PdfString = { kind: "string"; raw: string };
/** A keyword that is no value (obj, endobj, stream, R outside a reference …). */
export type PdfKeyword = { kind: "keyword"; word: string };
/** Each entry keeps its source text, so that a dictionary can be written again with some entries
 * changed and the others exactly as they were. */
export type PdfDict = { kind: "dict"; entries: Map<string, { value: PdfValue; raw: string }> };
export type PdfValue = number | boolean | null | PdfRef | PdfName | PdfString | PdfDict | PdfValue[];

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
/** Nesting deeper than this is taken for a corrupt or hostile file, not followed. */
const MAX_DEPTH = 100;

export const isWhitespace = (byte: number) => WHITESPACE.has(byte);
const isRegular = (byte: number | undefined) => byte !== undefined && !WHITESPACE.has(byte) && !DELIMITERS.has(byte);

/** A reader of values from `bytes`, starting at `pos`. */
export class PdfParser {
  readonly bytes: Buffer;
  pos: number;
  constructor(bytes: Buffer, pos: number) {
    this.bytes = bytes;
    this.pos = pos;
  }

  /** Skips whitespace and comments. */
  skipSpace(): void {
    const { bytes } = this;
    while (this.pos < bytes.length) {
      const byte = bytes[this.pos];
      if (WHITESPACE.has(byte)) this.pos++;
      else if (byte === 0x25) {
        while (this.pos < bytes.length && bytes[this.pos] !== 0x0a && bytes[this.pos] !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** The next value, or the keyword found in its place. */
  next(depth = 0): PdfValue | PdfKeyword {
    if (depth > MAX_DEPTH) throw new PdfError("its objects nest too deeply");
    this.skipSpace();
    const { bytes } = this;
    const byte = bytes[this.pos];
    if (byte === undefined) throw new PdfError("it ends in the middle of an object");
    if (byte === 0x2f) return { kind: "name", name: this.name() };
    if (byte === 0x28) return this.literalString();
    if (byte === 0x3c && bytes[this.pos + 1] === 0x3c) return this.dict(depth);
    if (byte === 0x3c) return this.hexString();
    if (byte === 0x5b) return this.array(depth);
    if (byte === 0x2b || byte === 0x2d || byte === 0x2e || (byte >= 0x30 && byte <= 0x39)) return this.numberOrRef();
    const word = this.word();
    if (word === "true") return true;
    if (word === "false") return false;
    if (word === "null") return null;
    if (word === "") throw new PdfError(`unexpected "${String.fromCharCode(byte)}" at byte ${this.pos}`);
    return { kind: "keyword", word };
  }

  /** The next value; a keyword in its place is an error. */
  value(depth = 0): PdfValue {
    const start = this.pos;
    const found = this.next(depth);
    if (isKeyword(found)) throw new PdfError(`expected a value at byte ${start}, found "${found.word}"`);
    return found;
  }

  /** Reads `word` (obj, endobj, stream …) or fails. */
  expect(word: string): void {
    this.skipSpace();
    const at = this.pos;
    const found = this.word();
    if (found !== word) throw new PdfError(`expected "${word}" at byte ${at}`);
  }

  word(): string {
    const start = this.pos;
    while (isRegular(this.bytes[this.pos])) this.pos++;
    return this.bytes.toString("latin1", start, this.pos);
  }

  private name(): string {
    this.pos++;
    const raw = this.word();
    return raw.includes("#") ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : raw;
  }

  private numberOrRef(): number | PdfRef {
    const first = this.number();
    if (!Number.isInteger(first) || first < 0) return first;
    const save = this.pos;
    this.skipSpace();
    const byte = this.bytes[this.pos];
    if (byte !== undefined && byte >= 0x30 && byte <= 0x39) {
      const gen = this.number();
      this.skipSpace();
      if (Number.isInteger(gen) && this.bytes[this.pos] === 0x52 && !isRegular(this.bytes[this.pos + 1])) {
        this.pos++;
        return { kind: "ref", num: first, gen };
      }
    }
    this.pos = save;
    return first;
  }

  private number(): number {
    const text = this.word();
    const value = Number(text);
    if (!Number.isFinite(value)) throw new PdfError(`"${text}" is not a number`);
    return value;
  }

  private literalString(): PdfString {
    const { bytes } = this;
    const start = this.pos;
    let depth = 0;
    for (; this.pos < bytes.length; this.pos++) {
      const byte = bytes[this.pos];
      if (byte === 0x5c) this.pos++;
      else if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) {
        this.pos++;
        return { kind: "string", raw: bytes.toString("latin1", start, this.pos) };
      }
    }
    throw new PdfError("a string never ends");
  }

  private hexString(): PdfString {
    const end = this.bytes.indexOf(0x3e, this.pos);
    if (end === -1) throw new PdfError("a string never ends");
    const start = this.pos;
    this.pos = end + 1;
    return { kind: "string", raw: this.bytes.toString("latin1", start, this.pos) };
  }

  private array(depth: number): PdfValue[] {
    this.pos++;
    const items: PdfValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.bytes[this.pos] === 0x5d) {
        this.pos++;
        return items;
      }
      items.push(this.value(depth + 1));
    }
  }

  private dict(depth: number): PdfDict {
    this.pos += 2;
    const entries: PdfDict["entries"] = new Map();
    for (;;) {
      this.skipSpace();
      const { bytes } = this;
      if (bytes[this.pos] === 0x3e && bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { kind: "dict", entries };
      }
      const key = this.next(depth + 1);
      if (!isName(key)) throw new PdfError(`a dictionary key is not a name at byte ${this.pos}`);
      this.skipSpace();
      const start = this.pos;
      const value = this.value(depth + 1);
      entries.set(key.name, { value, raw: bytes.toString("latin1", start, this.pos) });
    }
  }
}

export function isKeyword(value: PdfValue | PdfKeyword): value is PdfKeyword {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "keyword";
}
export function isName(value: PdfValue | PdfKeyword | undefined): value is PdfName {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "name";
}
export function isRef(value: PdfValue | undefined): value is PdfRef {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "ref";
}
export function isString(value: PdfValue | undefined): value is PdfString {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "string";
}
export function isDict(value: PdfValue | undefined): value is PdfDict {
  return typeof value === "object" && value !== null && !Array.isArray(value) && value.kind === "dict";
}

/** The value of `key` in `dict`, when there is one. */
export function entry(dict: PdfDict, key: string): PdfValue | undefined {
  return dict.entries.get(key)?.value;
}

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f" };

/** The bytes a string as written stands for (one character a byte), its escapes and hex undone:
 * (p\0613) and <703133> are both "p13". */
export function stringBytes(raw: string): string {
  if (raw.startsWith("<")) {
    const hex = raw.slice(1, -1).replace(/[^0-9a-fA-F]/g, "");
    return Buffer.from(hex.length % 2 ? `${hex}0` : hex, "hex").toString("latin1");
  }
  // An end of line not escaped is a line feed, whichever it was.
  return raw.slice(1, -1).replace(/\\(?:([0-7]{1,3})|(\r\n|\r|\n)|(.))|\r\n?/gs, (found: string, octal?: string, newline?: string, char?: string) => {
    if (!found.startsWith("\\")) return "\n";
    if (octal) return String.fromCharCode(parseInt(octal, 8) & 0xff);
    if (newline) return "";
    return ESCAPES[char!] ?? char!;
  });
}
