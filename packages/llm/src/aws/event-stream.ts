// AWS's binary event stream (application/vnd.amazon.eventstream), as Amazon Bedrock streams a reply:
// frames of a 4-byte total length, a 4-byte headers length, a CRC32 of those eight bytes, typed
// headers, a payload and a CRC32 of all before it. Frames arrive split across and joined within
// network chunks; the decoder keeps what is left of a frame until the rest comes.
import { crc32 } from "node:zlib";

export type HeaderValue = string | number | bigint | boolean | Uint8Array | Date;
export type EventStreamMessage = { headers: Record<string, HeaderValue>; payload: Uint8Array };

/** A frame that is not one: a CRC that does not match, lengths that do not add up, a header of an
 * unknown type, or a body that ends inside a frame. */
export class EventStreamError extends Error {
  constructor(message: string) {
    super(`the event stream is damaged: ${message}`);
    this.name = "EventStreamError";
  }
}

const PRELUDE = 12;
/** Prelude and message CRC. */
const OVERHEAD = PRELUDE + 4;
/** AWS's limit for one frame. */
const MAX_FRAME = 16 * 1024 * 1024;

export type EventStreamDecoder = {
  /** The whole frames `chunk` completes, in order; throws EventStreamError for a damaged one. */
  push(chunk: Uint8Array): EventStreamMessage[];
  /** Throws EventStreamError when the body ended inside a frame. */
  finish(): void;
};

export function eventStreamDecoder(): EventStreamDecoder {
  let pending = Buffer.alloc(0);
  // Chunks that came after `pending`, joined to it only once the frame they continue is whole: a
  // large frame in small chunks is then copied once, not once per chunk.
  let later: Uint8Array[] = [];
  let buffered = 0;
  /** The bytes the frame at the start of `pending` needs: its prelude, then its whole length. */
  let needed = PRELUDE;
  return {
    push(chunk) {
      later.push(chunk);
      buffered += chunk.length;
      if (buffered < needed) return [];
      pending = Buffer.concat([pending, ...later]);
      later = [];
      const messages: EventStreamMessage[] = [];
      needed = PRELUDE;
      while (pending.length >= PRELUDE) {
        const total = pending.readUInt32BE(0);
        const headersLength = pending.readUInt32BE(4);
        if (crc32(pending.subarray(0, 8)) !== pending.readUInt32BE(8)) throw new EventStreamError("a frame's prelude CRC does not match");
        if (total < OVERHEAD || total > MAX_FRAME || headersLength > total - OVERHEAD) throw new EventStreamError(`a frame says it is ${total} bytes long with ${headersLength} bytes of headers`);
        if (pending.length < total) {
          needed = total;
          break;
        }
        const frame = pending.subarray(0, total);
        pending = pending.subarray(total);
        if (crc32(frame.subarray(0, total - 4)) !== frame.readUInt32BE(total - 4)) throw new EventStreamError("a frame's message CRC does not match");
        messages.push({ headers: readHeaders(frame.subarray(PRELUDE, PRELUDE + headersLength)), payload: frame.subarray(PRELUDE + headersLength, total - 4) });
      }
      buffered = pending.length;
      return messages;
    },
    finish() {
      if (buffered > 0) throw new EventStreamError(`the body ended ${buffered} bytes into a frame`);
    },
  };
}

function readHeaders(bytes: Buffer): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  let at = 0;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new EventStreamError("a frame's headers run past their length");
  };
  while (at < bytes.length) {
    need(1);
    const nameLength = bytes[at++];
    need(nameLength + 1);
    const name = bytes.toString("utf8", at, at + nameLength);
    at += nameLength;
    const type = bytes[at++];
    let value: HeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        need(1);
        value = bytes.readInt8(at);
        at += 1;
        break;
      case 3:
        need(2);
        value = bytes.readInt16BE(at);
        at += 2;
        break;
      case 4:
        need(4);
        value = bytes.readInt32BE(at);
        at += 4;
        break;
      case 5:
      case 8: {
        need(8);
        const long = bytes.readBigInt64BE(at);
        value = type === 5 ? long : new Date(Number(long));
        at += 8;
        break;
      }
      case 6:
      case 7: {
        need(2);
        const length = bytes.readUInt16BE(at);
        at += 2;
        need(length);
        value = type === 7 ? bytes.toString("utf8", at, at + length) : new Uint8Array(bytes.subarray(at, at + length));
        at += length;
        break;
      }
      case 9:
        need(16);
        value = new Uint8Array(bytes.subarray(at, at + 16));
        at += 16;
        break;
      default:
        throw new EventStreamError(`header ${JSON.stringify(name)} has unknown type ${type}`);
    }
    headers[name] = value;
  }
  return headers;
}
