// The IR on stdout, then stdout closed (src/cli.ts): the caller reads it to its end of file and
// goes on with it while the warm cache file is written.
import * as fs from "fs";

/** Characters encoded per write: the text is not copied whole into one buffer (vendure's core:
 *  12 MB more at the end of the scan, where its warm cache is written). */
const CHUNK_CHARS = 1 << 20;

/** Write `text` (UTF-8) to the descriptor `fd` in pieces, then close it. A piece never ends
 *  between the two halves of a surrogate pair (each half alone would be written as U+FFFD). */
export function writeAllAndClose(fd: number, text: string, chunkChars = CHUNK_CHARS): void {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + chunkChars);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    writeAll(fd, Buffer.from(text.slice(start, end), "utf8"));
    start = end;
  }
  fs.closeSync(fd);
}

export function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) {
    try {
      done += fs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); // a full pipe that does not block: wait for the reader
    }
  }
}
