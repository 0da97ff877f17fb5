// What a path names when it is neither a regular file nor a directory. Such files are never read
// whole: a named pipe blocks until someone writes to it (holding one of the few threads all file
// work in the process shares), and a device such as /dev/zero never ends.
import type { Stats } from "node:fs";

/** "a named pipe (FIFO)", "a character device", …; undefined for a regular file or a directory. */
export function specialFileKind(stat: Stats): string | undefined {
  if (stat.isFile() || stat.isDirectory()) return undefined;
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}
