import path from 'node:path';
import { createToolBinding, createToolRegistry, type ToolRegistry } from '../../src/tools/registry.js';
import { RunCaches } from '../../src/tools/binding/run-caches.js';
import type { ToolBinding } from '../../src/tools/binding/types.js';
import type { ToolResult } from '../../src/agent/types.js';
import type { MeetingArtifacts } from '../../src/vault/notes/meeting.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig, VAULT_ROOT } from './memfs.js';

export const MEETING = 'Meetings/2026-11-30 Weekly Sync.md';
export const TRANSCRIPT = 'Meetings/Transcripts/2026-11-30 Weekly Sync.md';
export const CONTEXT = 'Meetings/Context/2026-11-30 Weekly Sync.md';
export const SUMMARY = 'Meetings/Summaries/2026-11-30 Weekly Sync.md';

export const MEETING_NOTE = [
  '---',
  'title: Weekly Sync',
  'start_time: 2026-11-30T09:00:00+01:00',
  'end_time: 2026-11-30T09:45:00+01:00',
  'attendees: [Alice, Bob]  # who was there',
  'projects: [Alpha, Beta]',
  'transcript: "[[Meetings/Transcripts/2026-11-30 Weekly Sync]]"',
  'context: "[[Meetings/Context/2026-11-30 Weekly Sync]]"',
  'summary: "[[Meetings/Summaries/2026-11-30 Weekly Sync]]"',
  '---',
  'Release date still open',
  'Ask Carol about the budget',
  '',
].join('\n');

export const TRANSCRIPT_NOTE = [
  '---',
  'meeting: "[[Meetings/2026-11-30 Weekly Sync]]"',
  'state: finished',
  '---',
  "[00:00:05] Alice: Good morning, let's start with the release.",
  '[00:00:12] Speaker 2: The build is green since Friday. Speaker 2: says hi.',
  '[00:00:20] **Speaker 2**: Speaker 2 will ship on Monday.',
  '[00:00:31] **Speaker 2:** Alice agrees.',
  '[00:00:40] Alice: Speaker 2: thanks.',
  '',
].join('\n');

export const CONTEXT_NOTE = [
  '---',
  'title: Weekly Sync',
  'state: summarizing',
  'agenda: ""   # kept as is',
  '---',
  'Notebook line 1',
  'Notebook line 2',
  'Notebook line 3',
  '',
].join('\n');

export function summaryNote(title: string, start: string, projects: string[], status = 'done', body = '## Summary\nPlanned the release.\n'): string {
  return `---\ntitle: ${title}\nstart_time: ${start}\nprojects: [${projects.join(', ')}]\nstatus: ${status}\n---\n${body}`;
}

export const BASE_FILES: Record<string, string> = {
  [MEETING]: MEETING_NOTE,
  [TRANSCRIPT]: TRANSCRIPT_NOTE,
  [CONTEXT]: CONTEXT_NOTE,
  'Meetings/Glossary.md': 'CI: continuous integration\nGA: general availability\n',
  'Meetings/Dictionary.md': 'Kubernetes\nAnthropic\n',
  'Meetings/Speakers/Bob.md': '---\nname: Bob\n---\nvoice profile of Bob\n',
  'Meetings/Speakers/Carol.md': 'voice profile of Carol\n',
  'Projects/Alpha/notes.md': 'Alpha line 1\nAlpha line 2\nAlpha line 3\n',
  'Projects/Alpha/docs/decisions.md': '# Decisions\nShip v2 in December\n',
  'Projects/Beta/roadmap.md': 'Beta roadmap\nrelease in Q1\n',
  'Projects/Gamma/secret.md': 'Gamma release plans\n',
  'Meetings/Summaries/2026-11-23 Alpha Sync.md': summaryNote('Alpha Sync', '2026-11-23T09:00:00+01:00', ['Alpha']),
  'Meetings/Summaries/2026-11-16 Beta Review.md': summaryNote('Beta Review', '2026-11-16T09:00:00+01:00', ['Beta']),
  'Meetings/Summaries/2026-11-20 Gamma Plan.md': summaryNote('Gamma Plan', '2026-11-20T09:00:00+01:00', ['Gamma']),
};

export function artifacts(overrides: Partial<MeetingArtifacts> = {}): MeetingArtifacts {
  return {
    meetingPath: path.join(VAULT_ROOT, MEETING),
    transcriptPath: path.join(VAULT_ROOT, TRANSCRIPT),
    contextPath: path.join(VAULT_ROOT, CONTEXT),
    summaryPath: path.join(VAULT_ROOT, SUMMARY),
    title: 'Weekly Sync',
    startTime: '2026-11-30T09:00:00+01:00',
    endTime: '2026-11-30T09:45:00+01:00',
    attendees: ['Alice', 'Bob'],
    projects: ['Alpha', 'Beta'],
    ...overrides,
  };
}

export interface Harness {
  fs: Fs;
  vault: Vault;
  ctx: ToolBinding;
  registry: ToolRegistry;
  /** Call a tool with arguments given as an object (serialised) or as raw text. */
  call(name: string, args?: Record<string, unknown> | string): Promise<ToolResult>;
  read(rel: string): Promise<string | undefined>;
  /** Every file of the memfs volume with its content: to prove a refusal changed nothing. */
  snapshot(): Promise<Map<string, string>>;
}

/** Every harness owns its caches (as a command would); a test file ends their threads in afterAll. */
const created = new Set<RunCaches>();
function ownCaches(vault: Vault): RunCaches {
  const caches = new RunCaches(vault);
  created.add(caches);
  return caches;
}

/** Close the caches of every harness made so far: worker threads end, nothing is held. */
export function closeHarnessCaches(): void {
  for (const caches of created) caches.close();
  created.clear();
}

export function harness(
  options: {
    /** Files over the base set; `null` removes one. */
    files?: Record<string, string | null>;
    meeting?: Partial<MeetingArtifacts>;
    config?: Record<string, unknown>;
    ctx?: Partial<Pick<ToolBinding, 'maxResultChars' | 'searchTimeoutMs' | 'searchMaxResults'>>;
  } = {},
): Harness {
  // `null` removes a base file here (memfs would make it a folder).
  const files = Object.fromEntries(Object.entries({ ...BASE_FILES, ...options.files }).filter(([, v]) => v !== null));
  const fs = memoryFs(files);
  const vault = new Vault(fs, testConfig(options.config).layout);
  const config = testConfig(options.config);
  const ctx = createToolBinding({
    vault,
    settings: config.settings,
    meeting: artifacts(options.meeting),
    caches: ownCaches(vault),
    ...options.ctx,
  });
  const registry = createToolRegistry(ctx);
  let n = 0;
  return {
    fs,
    vault,
    ctx,
    registry,
    call: (name, args = {}) =>
      registry.call({ id: `call_${++n}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }),
    read: (rel) => vault.readIfExists(vault.abs(rel)),
    async snapshot() {
      const out = new Map<string, string>();
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
          const p = path.join(dir, entry.name);
          if (entry.isDirectory()) await walk(p);
          else if (entry.isSymbolicLink()) out.set(p, `-> ${await fs.realpath(p).catch(() => 'dangling')}`);
          else out.set(p, Buffer.from(await fs.readFile(p)).toString('utf8'));
        }
      };
      await walk('/');
      return out;
    },
  };
}

/** memfs's promises API has what the vault's `Fs` leaves out (symlink, chmod of folders). */
export async function symlink(fs: Fs, target: string, linkPath: string): Promise<void> {
  await (fs as unknown as { symlink(target: string, path: string): Promise<void> }).symlink(target, linkPath);
}
