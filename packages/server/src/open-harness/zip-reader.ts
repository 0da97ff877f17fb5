// Reading a ZIP archive a client uploads (an agent's or a skill's bundle), whole in memory: the
// central directory says what is in it (sizes there are right even when a data descriptor follows
// the data, as zip-writer.ts writes), each file stored or deflated. No ZIP64, no encryption. Limits
// bound what it takes: a small archive may inflate to a great deal.
import { inflateRawSync } from "node:zlib";
import { ApiError } from "./errors.ts";

export type ZipFile = { name: string; data: Buffer };

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** The files of the archive `bytes` (folders left out), at most `maxFiles` of at most `maxBytes` in
 * all once inflated; 400 naming what is wrong with one that is not a ZIP this reads, 413 past the
 * limits. `field` names the upload in messages. */
export function readZip(bytes: Buffer, field: string, maxFiles: number, maxBytes: number, operation: string): ZipFile[] {
  const bad = (why: string) => new ApiError(400, "invalid_request", `${field}: not a ZIP archive this server reads: ${why}`, operation);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (bytes.readUInt32LE(at) === EOCD) {
      end = at;
      break;
    }
  }
  if (end < 0) throw bad("no end of central directory");
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw bad("ZIP64 archives are not read");
  const files: ZipFile[] = [];
  let total = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || bytes.readUInt32LE(at) !== CENTRAL) throw bad("its central directory is damaged");
    const flags = bytes.readUInt16LE(at + 8);
    const method = bytes.readUInt16LE(at + 10);
    const packed = bytes.readUInt32LE(at + 20);
    const size = bytes.readUInt32LE(at + 24);
    const nameLength = bytes.readUInt16LE(at + 28);
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32);
    const local = bytes.readUInt32LE(at + 42);
    const name = bytes.subarray(at + 46, at + 46 + nameLength).toString("utf8");
    at += 46 + skip;
    if (name.endsWith("/")) continue;
    if (flags & 0x1) throw bad(`${name} is encrypted`);
    if (files.length >= maxFiles) throw new ApiError(413, "payload_too_large", `${field}: more than ${maxFiles} files, the most ${operation} takes`, operation);
    total += size;
    if (total > maxBytes) throw new ApiError(413, "payload_too_large", `${field}: more than ${maxBytes} bytes once unpacked, the most ${operation} takes`, operation);
    if (local + 30 > bytes.length || bytes.readUInt32LE(local) !== LOCAL) throw bad(`the header of ${name} is damaged`);
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28);
    const raw = bytes.subarray(start, start + packed);
    if (raw.length !== packed) throw bad(`${name} is cut short`);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
      } catch {
        throw bad(`${name} does not inflate`);
      }
    } else throw bad(`${name} is compressed by method ${method} (only stored and deflated files are read)`);
    if (data.length !== size) throw bad(`${name} is not the size its directory says`);
    files.push({ name, data });
  }
  return files;
}
