// The catch-up scan at daemon start over 10,000 meetings (meeting note, finished transcript,
// context note, summary each; a few left to do), against a bare Node script that lists the
// same folders and reads every one of those files once with fs.readFile.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { dist, ms, random, report, reportReference, runs, sentence, stats, tempDir, writeFile } from './_lib.mjs';

const RUNS = runs(7);
const MEETINGS = Number(process.env.BENCH_MEETINGS ?? 10_000);
/** Meetings the scan must find: transcripts finished while the daemon was down, runs a crash interrupted. */
const PENDING = 20;

const { dir, cleanup } = tempDir('catchup');
const vault = path.join(dir, 'vault');
const rand = random(3);
const t0 = performance.now();
let bytes = 0;
const put = (rel, text) => {
  writeFile(path.join(vault, rel), text);
  bytes += Buffer.byteLength(text);
};
for (let i = 0; i < MEETINGS; i++) {
  const name = `2026-01-01 ${String(i).padStart(5, '0')} Meeting`;
  const pending = i < PENDING;
  const links = `transcript: "[[Meetings/Transcripts/${name}]]"\ncontext: "[[Meetings/Context/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"`;
  put(`Meetings/${name}.md`, `---\ntitle: Meeting ${i}\nstart_time: 2026-01-01T09:00:00Z\nattendees: [Alice, Bob]\nprojects: [Alpha]\n${links}\n---\nNotes typed during the meeting.\n`);
  let speech = '';
  for (let l = 0; l < 120; l++) speech += `[00:${String(Math.floor(l / 60)).padStart(2, '0')}:${String(l % 60).padStart(2, '0')}] Speaker ${l % 3}: ${sentence(rand, 50)}\n`;
  put(`Meetings/Transcripts/${name}.md`, `---\nmeeting: "[[Meetings/${name}]]"\nstate: finished\n---\n${speech}`);
  const state = pending ? (i % 2 ? 'summarizing' : 'transcribing') : 'finished';
  put(
    `Meetings/Context/${name}.md`,
    `---\ntitle: Meeting ${i}\nstart_time: 2026-01-01T09:00:00Z\nend_time: 2026-01-01T10:00:00Z\nmeeting: "[[Meetings/${name}]]"\ntranscript: "[[Meetings/Transcripts/${name}]]"\nsummary: "[[Meetings/Summaries/${name}]]"\nstate: ${state}\nagenda: ""\n---\nNotebook of the agent.\n`,
  );
  if (!pending) {
    put(
      `Meetings/Summaries/${name}.md`,
      `---\ntitle: Meeting ${i}\nstart_time: 2026-01-01T09:00:00Z\nprojects: [Alpha]\nmeeting: "[[Meetings/${name}]]"\nstatus: done\n---\n## Summary\n${sentence(rand, 300)}\n## Decisions\n- ${sentence(rand, 80)}\n## Next steps\n- ${sentence(rand, 80)}\n`,
    );
  }
}
console.log(`vault: ${MEETINGS} meetings, 4 notes each (${(bytes / 1e6).toFixed(0)} MB; ${PENDING} to catch up), generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const { resolveConfig } = await dist('config.js');
const { CatchUp } = await dist('daemon/intake/catch-up.js');
const { Vault } = await dist('vault/files/vault.js');
const { nodeFs } = await dist('vault/files/fs.js');
const { silentLogger } = await dist('log.js');
const config = resolveConfig({ MeetingAssistant: { VaultPath: vault } });
const v = new Vault(nodeFs, config.layout);

/** The bare script: list the meeting folders, read every note once. */
async function listAll(folder) {
  const out = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const p = path.join(folder, entry.name);
    if (entry.isDirectory()) out.push(...(await listAll(p)));
    else if (entry.name.endsWith('.md')) out.push(p);
  }
  return out;
}
async function bareSequential() {
  for (const file of await listAll(path.join(vault, 'Meetings'))) await readFile(file);
}
async function bareConcurrent() {
  const files = await listAll(path.join(vault, 'Meetings'));
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < files.length) await readFile(files[next++]);
  }));
}

// A daemon start: a new process, so nothing remembered from an earlier scan.
let last;
async function startupScan() {
  const catchUp = new CatchUp({ vault: v, settings: config.settings, log: silentLogger, isQueued: () => false });
  last = await catchUp.scan({ startup: true });
}

await bareSequential(); // page cache warm for everyone
const seq = [];
const conc = [];
const scan = [];
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so that load from elsewhere on the machine hits all alike.
  let t = performance.now();
  await bareSequential();
  seq.push(performance.now() - t);
  t = performance.now();
  await bareConcurrent();
  conc.push(performance.now() - t);
  t = performance.now();
  await startupScan();
  scan.push(performance.now() - t);
}
const files = (await listAll(path.join(vault, 'Meetings'))).length;
console.log(`scan result: ${last.jobs.length} jobs (expected ${PENDING}), ${last.checked} notes checked, ${last.read} frontmatters read; the bare script reads ${files} files`);
const reference = { label: 'bare readFile loop', stats: stats(seq) };
reportReference('bare script: list + fs.readFile every note, one after another', reference.stats);
reportReference('bare script: list + fs.readFile every note, 16 at a time', stats(conc));
const s = stats(scan);
report('catch-up scan at start (CatchUp.scan, nothing remembered)', s, {
  reference,
  target: { text: '≤ 1.5× the bare script', ok: s.median <= 1.5 * reference.stats.median },
  note: `${(s.median / stats(conc).median).toFixed(2)}× the 16-at-a-time variant`,
});

// The scheduled scans after it (every 5 minutes by default): unchanged notes are not read again.
const catchUp = new CatchUp({ vault: v, settings: config.settings, log: silentLogger, isQueued: () => false });
await catchUp.scan({ startup: true });
const warm = [];
for (let i = 0; i < RUNS; i++) {
  const t = performance.now();
  await catchUp.scan({ startup: false });
  warm.push(performance.now() - t);
}
report('scheduled catch-up scan (nothing changed)', stats(warm), { reference, note: 'no target' });
console.log(`(${ms(s.median / files)} per note at start)`);
cleanup();
