// Images into `harness chat`'s prompt, as Claude Code users paste them: Ctrl+V attaches the
// clipboard's image (clipboard-image.ts), and a pasted path of an image file (a file dragged onto
// the terminal: pasted-image-path.ts) attaches that file. Each is kept where the chat's runs read it
// without asking (images.ts) and shows as "[Image #N]" (paste.ts). A chat on a shared server cannot
// attach them: its runs read the session's workspace on the server, not this machine's files.
import { readClipboardImage, type ClipboardImage } from "./clipboard-image.ts";
import { imageStore } from "./images.ts";
import { pastedImagePath } from "./pasted-image-path.ts";

export type ImagePasting = {
  /** The mention of the image a paste names, if it names one that can be attached. */
  imageOf(text: string): string | undefined;
  /** Ctrl+V: `attach` is given the mention of the clipboard's image, once read. */
  fromClipboard(attach: (mention: string) => void): Promise<void>;
};

/** `project`: the workspace of a local chat's runs, undefined for a chat on a shared server
 * (`where`). `note`: tells the user, on a line of its own. */
export function imagePasting(o: { project?: string; where: string; home: string; note: (text: string) => void; clipboard?: () => Promise<ClipboardImage> }): ImagePasting {
  const store = o.project === undefined ? undefined : imageStore(o.project);
  const read = o.clipboard ?? (() => readClipboardImage());
  let reading = false;
  return {
    imageOf(text) {
      const file = store && pastedImagePath(text, o.home);
      if (!store || !file) return undefined;
      const kept = store.adopt(file);
      if (kept.ok) return kept.mention;
      o.note(`(${kept.note}: it stays text)`);
      return undefined;
    },
    async fromClipboard(attach) {
      if (!store) return o.note(`(Ctrl+V: the runs of this chat read files on the server ${o.where}, which cannot read an image of this machine's clipboard; harness chat --local can)`);
      // Pressed again while the clipboard is read: one image, not two.
      if (reading) return;
      reading = true;
      try {
        const image = await read();
        if (!image.ok) return o.note(`(${image.note})`);
        const kept = store.save(image.bytes, image.extension);
        if (kept.ok) attach(kept.mention);
        else o.note(`(${kept.note})`);
      } finally {
        reading = false;
      }
    },
  };
}
