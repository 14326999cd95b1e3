// The code page of a large legacy file (docs/design.md §9, "Files as they really are"): 20 MB
// of French in Windows-1252, as lines (LF), as one line (a paragraph, a minified JSON) and with
// old Mac line ends (CR alone), through decodeText (UTF-8 refused, the stray-byte reading
// refused, then code-page.ts). The code page is told on a sample of at most 64 KB of the
// non-ASCII lines, a long line in pieces, and the file decoded once: before, a file of one
// line was a sample of its whole size, decoded in every page tried (4 MB: 26 s, 415 MB RSS).
import iconv from 'iconv-lite';
import { dist, report, runs, stats, timeRuns } from './_lib.mjs';

const MB = Number(process.env.BENCH_CODE_PAGE_MB ?? 20);
const { decodeText } = await dist('import/formats/text-decode.js');
const LINE = 'Nous allons commencer la réunion à neuf heures, très bien, merci à tous.';
const count = Math.ceil((MB * 1e6) / (LINE.length + 1));

for (const [shape, separator] of [
  ['lines (LF)', '\n'],
  ['one line', ' '],
  ['CR line ends', '\r'],
]) {
  const bytes = iconv.encode(Array.from({ length: count }, () => LINE).join(separator) + '\n', 'windows-1252');
  const times = await timeRuns(() => decodeText({ name: 'big.txt', bytes }), { n: runs(3) });
  report(`code page of a ${MB} MB Windows-1252 file, ${shape}`, stats(times), { note: `RSS after: ${Math.round(process.memoryUsage().rss / 1e6)} MB` });
}
