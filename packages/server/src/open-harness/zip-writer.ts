// A ZIP archive written as it goes (APPNOTE 6.3): each file deflated as it is read, its CRC and sizes
// in a data descriptor after its data (so nothing is read twice or held whole), folders as entries of
// their own, names in UTF-8 (flag bit 11). No ZIP64: the caller keeps the archive under 4 GiB and
// 65,535 entries.
import { createDeflateRaw, crc32 } from "node:zlib";
import { Readable } from "node:stream";

/** A file (`data`, its bytes) or a folder (no data; its name ends in "/"). */
export type ZipEntry = { name: string; modified: Date; mode: number; data?: () => Promise<Readable | undefined> };

const DESCRIPTOR = 0x08;
const UTF8 = 0x800;
const DEFLATE = 8;

/** The archive of `entries`, in order; an entry whose data() gives undefined (gone since it was
 * listed) is left out. */
export async function* zipOf(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Uint8Array> {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  for await (const entry of entries) {
    const folder = entry.data === undefined;
    const source = folder ? undefined : await entry.data!();
    if (!folder && !source) continue;
    const name = Buffer.from(entry.name);
    const { time, date } = dosTime(entry.modified);
    const flags = UTF8 | (folder ? 0 : DESCRIPTOR);
    const method = folder ? 0 : DEFLATE;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    // CRC and sizes (at 14, 18, 22) are 0: for a file they follow its data.
    local.writeUInt16LE(name.length, 26);
    const at = offset;
    let crc = 0;
    let size = 0;
    let packed = 0;
    try {
      yield Buffer.concat([local, name]);
      offset += local.length + name.length;
      if (source) {
        const deflate = createDeflateRaw();
        source.on("data", (chunk: Buffer) => {
          crc = crc32(chunk, crc);
          size += chunk.length;
        });
        source.on("error", (error) => deflate.destroy(error));
        source.pipe(deflate);
        for await (const chunk of deflate as AsyncIterable<Buffer>) {
          packed += chunk.length;
          yield chunk;
        }
      }
    } finally {
      // Closes the file when the archive is not read to its end (the client went away), wherever
      // it was left: at the file's header too.
      source?.destroy();
    }
    if (source) {
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(packed, 8);
      descriptor.writeUInt32LE(size, 12);
      yield descriptor;
      offset += packed + descriptor.length;
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 20, 4); // made on Unix: the external attributes hold the mode
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(flags, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt16LE(time, 12);
    header.writeUInt16LE(date, 14);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(packed, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE((((entry.mode & 0xffff) << 16) | (folder ? 0x10 : 0)) >>> 0, 38);
    header.writeUInt32LE(at, 42);
    central.push(header, name);
    count++;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  yield Buffer.concat([directory, end]);
}

/** The MS-DOS time and date of `when` (local time, as ZIP tools read it), within 1980–2107. */
function dosTime(when: Date): { time: number; date: number } {
  const valid = Number.isNaN(when.getTime()) ? new Date(0) : when;
  const year = valid.getFullYear();
  if (year < 1980) return { time: 0, date: (1 << 5) | 1 };
  if (year > 2107) return { time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31 };
  return {
    time: (valid.getHours() << 11) | (valid.getMinutes() << 5) | (valid.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((valid.getMonth() + 1) << 5) | valid.getDate(),
  };
}
