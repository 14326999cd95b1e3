import type { Readable } from 'node:stream';
import { ImportError, type SourceFile } from './cues.js';

/**
 * A `.docx` is a zip, and a zip of 1.4 MB can unpack to 400 MB of XML: mammoth (through
 * jszip) would then hold it as a string and as a parsed tree, gigabytes, until the heap runs
 * out; the catch-up scan finds the file again at every start, so a service restarts into the
 * same crash (issue 33). So before mammoth sees a document, every entry is inflated here with
 * the bytes counted and thrown away, and the whole must stay within `Agent.MaxFileBytes`
 * (docs/design.md §9 "Limits").
 *
 * The sizes a zip declares can lie, so they are only the first check: yauzl inflates each
 * entry with `validateEntrySizes`, which fails the stream as soon as the real output passes
 * the declared size, and the bytes are counted here as well, so the real inflated total is
 * capped whatever the headers say. yauzl reads the central directory as the zip format
 * defines it (Zip64, data descriptors, comments, local headers that disagree), inflates with
 * Node's own zlib, streams in small chunks, and depends on one tiny package: a reader
 * written here would have to get all of that right to be as safe.
 */

/**
 * Refuses a `.docx` whose entries inflate to more than `maxBytes` in all. What is held at
 * once is the zip itself and one inflated chunk of a stream (zlib's 16 KB), never an entry.
 */
export async function assertDocxWithin(file: SourceFile, maxBytes: number): Promise<void> {
  const { default: yauzl } = await import('yauzl');
  let zip;
  try {
    zip = await yauzl.fromBufferPromise(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength), { lazyEntries: true, validateEntrySizes: true });
  } catch (err) {
    throw notADocument(file.name, err);
  }
  let total = 0;
  try {
    if (zip.entryCount > MAX_DOCX_ENTRIES) throw tooManyParts(file.name, zip.entryCount);
    for (let entry = await nextEntry(zip); entry; entry = await nextEntry(zip)) {
      if (entry.fileName.endsWith('/')) continue;
      if (total + entry.uncompressedSize > maxBytes) throw tooLarge(file.name, maxBytes);
      const stream = await zip.openReadStreamPromise(entry);
      total = await countInflated(stream, total, maxBytes, file.name);
    }
    assertWholeDirectory(file.bytes, (zip as unknown as { readEntryCursor: number }).readEntryCursor);
  } catch (err) {
    if (err instanceof ImportError) throw err;
    throw notADocument(file.name, err);
  } finally {
    zip.close();
  }
}

/**
 * The most parts a `.docx` is read with. A Word document has a few dozen; each part costs a
 * zlib stream here and an object in jszip, and 20 MB of empty parts are ~190,000 of them
 * (60,000 took 26 s to count): refused by the count the central directory gives, at once.
 */
const MAX_DOCX_ENTRIES = 10_000;

function tooManyParts(name: string, count: number): ImportError {
  return new ImportError(`${name} holds ${count} parts, more than the ${MAX_DOCX_ENTRIES} a .docx is read with (a Word document has a few dozen); it is not read`, 'export the transcript as .vtt or .txt instead');
}

const EOCD = 0x06054b50;
const ZIP64_EOCD = 0x06064b50;
const ZIP64_LOCATOR = 0x07064b50;

/**
 * The entries yauzl counted must be every entry jszip (mammoth's reader) will see. yauzl reads
 * as many central records as the end record declares; jszip reads every record in a row and
 * shifts all offsets when the central directory does not end where the end record is (it takes
 * that for bytes prepended to the zip). So a bomb whose end record declares 0 entries, or
 * whose directory sits elsewhere, passed the count and was inflated whole by mammoth. Here the
 * records counted must end exactly at the (last) end record, or at the Zip64 record its locator
 * names, and that record's directory offset and size must span exactly them.
 */
function assertWholeDirectory(bytes: Uint8Array, end: number): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = buf.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const at = (offset: number) => (offset >= 0 && offset + 4 <= buf.length ? buf.readUInt32LE(offset) : -1);
  let offset: number;
  let size: number;
  if (at(end) === EOCD && end === eocd) {
    [size, offset] = [buf.readUInt32LE(eocd + 12), buf.readUInt32LE(eocd + 16)];
  } else if (at(end) === ZIP64_EOCD && end + 56 <= buf.length && at(eocd - 20) === ZIP64_LOCATOR && Number(buf.readBigUInt64LE(eocd - 12)) === end) {
    [size, offset] = [Number(buf.readBigUInt64LE(end + 40)), Number(buf.readBigUInt64LE(end + 48))];
  } else {
    throw new Error('its central directory holds more than its end record declares');
  }
  if (offset + size !== end) throw new Error('its central directory is not where its end record says');
}

type ZipFile = Awaited<ReturnType<(typeof import('yauzl'))['fromBufferPromise']>>;
type Entry = Parameters<ZipFile['openReadStreamPromise']>[0];

/** The next entry of a lazily read zip; undefined at its end. */
function nextEntry(zip: ZipFile): Promise<Entry | undefined> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', onError);
    };
    const onEntry = (entry: Entry) => (cleanup(), resolve(entry));
    const onEnd = () => (cleanup(), resolve(undefined));
    const onError = (err: Error) => (cleanup(), reject(err));
    zip.on('entry', onEntry);
    zip.on('end', onEnd);
    zip.on('error', onError);
    zip.readEntry();
  });
}

/** Reads `stream` to its end, counting; stops it past `maxBytes` in all (the total so far included). */
async function countInflated(stream: Readable, total: number, maxBytes: number, name: string): Promise<number> {
  try {
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      if (total > maxBytes) throw tooLarge(name, maxBytes);
    }
    return total;
  } finally {
    stream.destroy();
  }
}

function tooLarge(name: string, maxBytes: number): ImportError {
  return new ImportError(
    `${name} expands to more than Agent.MaxFileBytes (${maxBytes} bytes) when unpacked (a .docx is a zip); it is not read`,
    'export the transcript as .vtt or .txt instead, or, if the document is really that large, raise Agent.MaxFileBytes in the configuration and tick retry',
  );
}

function notADocument(name: string, err: unknown): ImportError {
  return new ImportError(`${name} is not a Word document that can be read (${(err as Error).message}); save it again as .docx, or export the transcript as .vtt`);
}
