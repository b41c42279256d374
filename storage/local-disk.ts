import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomUUID } from 'node:crypto';
import type { DownloadTarget, FileStorage } from './port.ts';

/** `<organization id>/<file id>`: anything else could climb out of the folder. */
const KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`not a storage key: ${key}`);
  return key;
}

/**
 * Files on the local disk under one folder (the embedded default; `.data/files`, git-ignored). An
 * upload is written to a `.part` file beside its place and renamed into it once complete and flushed,
 * so a reader never sees half a file and a refused upload leaves only a removed temporary file.
 * Downloads go through the API's signed route, whose URL `signedUrl` builds.
 */
export function localDiskStorage(options: { dir: string; signedUrl: (target: DownloadTarget) => string }): FileStorage {
  const root = path.resolve(options.dir);
  const place = (key: string) => path.join(root, checkedKey(key));
  return {
    kind: 'local',
    async put(key, body: Readable) {
      const final = place(key);
      await mkdir(path.dirname(final), { recursive: true });
      const partial = `${final}.${randomUUID()}.part`;
      try {
        await pipeline(body, createWriteStream(partial, { flags: 'wx', flush: true }));
        await rename(partial, final);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
    },
    async delete(key) {
      await rm(place(key), { force: true });
    },
    async downloadUrl(target) {
      return options.signedUrl(target);
    },
    async open(key) {
      const file = place(key);
      await stat(file); // a missing file fails here, before any byte of the response is sent
      return createReadStream(file);
    },
  };
}
