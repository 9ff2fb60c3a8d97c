import { createHash } from "node:crypto";
import { once } from "node:events";
import type { Readable } from "node:stream";
import { createGzip } from "node:zlib";
import { pack as createPack } from "tar-stream";

/** A file as the manifest lists it. */
export interface BundledFile {
  path: string;
  bytes: number;
  sha256: string;
}

/** A .tar.gz written as a stream: entries one at a time, each hashed as it goes; `output` is the gzip stream. */
interface TarGzWriter {
  output: Readable;
  file(path: string, content: string | Buffer): Promise<BundledFile>;
  /** A file of `size` bytes whose chunks come from `chunks`; fewer or more bytes than `size` is an error. */
  stream(path: string, size: number, chunks: AsyncIterable<Buffer>): Promise<BundledFile>;
  /** Ends the tar; `output` ends once its reader has read the rest. */
  finish(): void;
}

export function createTarGz(folder: string, mtime: Date): TarGzWriter {
  const pack = createPack();
  const gzip = createGzip();
  pack.pipe(gzip);
  // The reader went away (a client that disconnected): every wait ends with an error instead of waiting for ever.
  const gone = new Promise<never>((_, reject) =>
    gzip.once("close", () => {
      pack.destroy();
      reject(new Error("the bundle's reader went away"));
    }),
  );
  gone.catch(() => undefined);
  // A reader that goes away destroys the stream, often with an error (an aborted request): that ends the bundle
  // through "close" above, and must not be an uncaught exception that ends the service.
  gzip.on("error", () => undefined);
  pack.on("error", () => undefined);

  const header = (path: string, size: number) => ({ name: `${folder}/${path}`, size, mode: 0o644, mtime, type: "file" as const });

  const stream = async (path: string, size: number, chunks: AsyncIterable<Buffer>): Promise<BundledFile> => {
    const hash = createHash("sha256");
    const done = new Promise<void>((resolve, reject) => {
      const entry = pack.entry(header(path, size), (err) => (err ? reject(err) : resolve()));
      entry.on("error", () => undefined); // reported through the callback above
      void (async () => {
        try {
          for await (const chunk of chunks) {
            hash.update(chunk);
            if (!entry.write(chunk)) await Promise.race([once(entry as unknown as NodeJS.EventEmitter, "drain"), gone]);
          }
          entry.end();
        } catch (err) {
          entry.destroy(err as Error);
          reject(err as Error);
        }
      })();
    });
    await Promise.race([done, gone]);
    return { path, bytes: size, sha256: hash.digest("hex") };
  };

  return {
    output: gzip,
    file: (path, content) => {
      const buffer = typeof content === "string" ? Buffer.from(content, "utf8") : content;
      // In pieces: the reader's pace holds back a big file too, rather than all of it waiting in the tar's buffer.
      const pieces = async function* () {
        for (let at = 0; at < buffer.length; at += 64 * 1024) yield buffer.subarray(at, at + 64 * 1024);
      };
      return stream(path, buffer.length, pieces());
    },
    stream,
    finish() {
      pack.finalize();
    },
  };
}
