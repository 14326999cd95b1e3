// The import of a 3-hour Teams transcript (docs/design.md §9): about 20,000 cues, ~2 MB of
// WebVTT with cue identifiers and voice tags, dropped into the inbox of a real vault on disk.
// Timed from "settled" (the import starts) to the transcript note in place, which is all of
// importFile: read, hash, parse, the three notes staged, the original moved, the notes placed.
// Peak memory is measured in a child process of its own: the growth of its peak RSS
// (getrusage maxRSS) over the import, after a warm-up import of a small file, against the
// file's size. Targets: ≤ 1 s; peak growth ≤ 5× the file.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dist, report, runs, stats, tempDir, timeRuns, writeFile } from './_lib.mjs';

const CUES = Number(process.env.BENCH_IMPORT_CUES ?? 20_000);
const SPEAKERS = ['Alice Martin', 'Bob Chen', 'Carol Diaz', 'Dan Okafor', 'Erin Walsh'];
const WORDS = 'we ship the release on friday then tag it check the build pipeline budget numbers customer feedback next sprint roadmap risks owner'.split(' ');

export function teamsVtt(cues = CUES) {
  const out = ['WEBVTT', ''];
  let t = 3;
  let speaker = 0;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const stamp = (s) => `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${(s % 60).toFixed(3).padStart(6, '0')}`;
  for (let i = 0; i < cues; i++) {
    if (rand() < 0.3) speaker = Math.floor(rand() * SPEAKERS.length);
    const words = Array.from({ length: 4 + Math.floor(rand() * 5) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
    const d = 0.35 + rand() * 0.3;
    out.push(`5c1f3a52-9c0e-4d7a-8f21-${String(i).padStart(12, '0')}/${i}-0`, `${stamp(t)} --> ${stamp(t + d)}`, `<v ${SPEAKERS[speaker]}>${words}.</v>`, '');
    t += d + 0.18;
  }
  return out.join('\n');
}

const child = process.argv[2] === '--child';
const { importFile } = await dist('import/importer.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { resolveConfig } = await dist('config.js');
const clock = () => new Date();

function vaultAt(dir) {
  return new Vault(nodeFs, resolveConfig({ MeetingAssistant: { VaultPath: dir } }, { cwd: '/' }).layout);
}

async function importOnce(dir, name, text) {
  const vault = vaultAt(dir);
  const file = path.join(dir, 'Meetings', 'Inbox', name);
  writeFile(file, text);
  const outcome = await importFile({ vault, clock }, { file, keep: 'move' });
  if (outcome.kind !== 'imported') throw new Error(`not imported: ${JSON.stringify(outcome)}`);
  return outcome;
}

if (child) {
  // Peak memory: one import in a fresh process, after a small warm-up one.
  const dir = process.argv[3];
  const text = teamsVtt();
  await importOnce(dir, 'warm-up.vtt', teamsVtt(200));
  globalThis.gc?.();
  const before = process.resourceUsage().maxRSS * 1024;
  const rssBefore = process.memoryUsage().rss;
  await importOnce(dir, '2026-12-02 0900 Quarterly review.vtt', text);
  const after = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ growth: after - Math.max(before, rssBefore), bytes: Buffer.byteLength(text) }));
} else {
  const text = teamsVtt();
  const bytes = Buffer.byteLength(text);
  console.log(`corpus: ${CUES.toLocaleString('en-US')} cues, ${(bytes / 1024 / 1024).toFixed(2)} MB of WebVTT (Teams style: cue ids, voice tags, unpadded hours)`);
  const { dir } = tempDir('import');
  const times = await timeRuns((i) => importOnce(path.join(dir, `run${i}`), '2026-12-02 0900 Quarterly review.vtt', text), { n: runs(5) });
  const s = stats(times);
  const transcript = path.join(dir, 'run0', 'Meetings', 'Transcripts', '2026-12-02 0900 Quarterly review.md');
  const note = `transcript note ${(statSync(transcript).size / 1024 / 1024).toFixed(2)} MB`;
  const okTime = report('import, settled → transcript note in place', s, { target: { text: '≤ 1000 ms', ok: s.median <= 1000 }, note });
  // V8 sizes its young generation (up to 16 MB per semi-space) by how much survives, not by
  // the file: under default flags the growth of a 2.5 MB import is mostly that sizing (an
  // import four times larger grows the RSS less). The target is checked with the young
  // generation held at 1 MB, which leaves what the import itself keeps; both are printed.
  const growth = (flags) => {
    const out = [];
    for (let i = 0; i < runs(3); i++) {
      const memDir = path.join(dir, `mem${flags.length}-${i}`);
      const result = spawnSync(process.execPath, ['--expose-gc', ...flags, fileURLToPath(import.meta.url), '--child', memDir], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(result.stderr);
      out.push(JSON.parse(result.stdout.trim().split('\n').pop()).growth / bytes);
    }
    return stats(out);
  };
  const factor = (x) => `${x.toFixed(2)}×`;
  report('peak RSS growth during the import ÷ file size, default V8 flags', growth([]), { unit: factor, note: 'includes the young generation V8 grows meanwhile' });
  const capped = growth(['--max-semi-space-size=1']);
  const okMem = report('peak RSS growth during the import ÷ file size, young generation at 1 MB', capped, { unit: factor, target: { text: '≤ 5×', ok: capped.median <= 5 } });
  process.exitCode = okTime && okMem ? 0 : 1;
}
