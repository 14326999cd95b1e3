import iconv from 'iconv-lite';

/**
 * A UTF-8 file with a few bytes that are no UTF-8 (docs/design.md §9, "Files as they really
 * are"): a UTF-8 export with a line pasted in, or touched up, by a Windows-1252 editor
 * (`José said caf\xE9`). Read as a whole in a code page it is mojibake (`JosÃ©`), and refused
 * it loses every word; so its UTF-8 stays UTF-8 and each stray byte is read as Windows-1252.
 *
 * Only when the file shows that it is UTF-8: at least as many well-formed multi-byte UTF-8
 * sequences as stray bytes (a Windows-1252 file holds almost none: its accented letter is
 * followed by a plain letter, not by a byte 0x80–0xBF). Undefined otherwise, as soon as the
 * stray bytes are many and twice the sequences.
 */
export function mixedUtf8(bytes: Uint8Array): string | undefined {
  let valid = 0;
  const stray: number[] = [];
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      valid++;
      i += n;
    } else {
      stray.push(i);
      i++;
      // A code-page file shows itself within its first accented words: no scan of 100 MB.
      if (stray.length > 64 && stray.length > 2 * valid) return undefined;
    }
  }
  if (valid === 0 || stray.length > valid) return undefined;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  let from = 0;
  for (const at of stray) {
    parts.push(utf8.decode(bytes.subarray(from, at)), iconv.decode(Buffer.from([bytes[at]!]), 'windows-1252'));
    from = at + 1;
  }
  parts.push(utf8.decode(bytes.subarray(from)));
  return parts.join('');
}

/** The length of the well-formed UTF-8 sequence at `i` (RFC 3629), or 0. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < bytes.length && bytes[i + k]! >= lo && bytes[i + k]! <= hi;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const lo = b === 0xe0 ? 0xa0 : 0x80;
    const hi = b === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const lo = b === 0xf0 ? 0x90 : 0x80;
    const hi = b === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}
