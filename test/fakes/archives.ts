/**
 * What a package holds, read from the archive a user downloads: a .vsix (zip) or an npm tarball
 * (gzipped tar). Only the listing: names and sizes, enough to check what ships.
 */
import { gunzipSync } from 'node:zlib';

export interface Entry {
  name: string;
  size: number;
}

/** The files of a zip archive, from its central directory (the end record points to it). */
export function zipEntries(zip: Buffer): Entry[] {
  const END = 0x06054b50;
  const CENTRAL = 0x02014b50;
  // The end record is the last 22 bytes unless the archive carries a comment after it.
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END) end--;
  if (end < 0) throw new Error('not a zip archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: Entry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL) throw new Error(`zip central directory entry ${i} is damaged`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({ name: zip.toString('utf8', at + 46, at + 46 + nameLength), size: zip.readUInt32LE(at + 24) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The regular files of a .tgz, in 512-byte tar blocks (npm writes plain ustar names). */
export function tgzEntries(tgz: Buffer): Entry[] {
  const tar = gunzipSync(tgz);
  const entries: Entry[] = [];
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar.toString('utf8', at, at + 100).replace(/\0.*$/s, '');
    if (!name) break; // two zero blocks end the archive
    const prefix = tar.toString('utf8', at + 345, at + 500).replace(/\0.*$/s, '');
    const size = parseInt(
      tar
        .toString('utf8', at + 124, at + 136)
        .replace(/\0.*$/s, '')
        .trim() || '0',
      8,
    );
    const type = tar.toString('utf8', at + 156, at + 157);
    if (type === '0' || type === '\0') entries.push({ name: prefix ? `${prefix}/${name}` : name, size });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}
