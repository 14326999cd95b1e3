import { describe, expect, it } from 'vitest';
import type { ModelClient, ModelResponse } from '../../src/agent/types.js';
import { ModelError } from '../../src/agent/types.js';
import type { Logger } from '../../src/log.js';
import { summarizeMeeting, type RunOutcome } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import type { Fs } from '../../src/vault/files/fs.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';

/**
 * Issue #24 point 2: every error path of a run ends in the vault. A run is counted once
 * (its file system calls, clock reads, log calls, model requests), then run again with a
 * throw injected at each of those steps in turn: every time, the summary path holds a
 * failure report (or the summary the agent wrote before the throw) and the context note is
 * not left `summarizing`. Point 9: a report that cannot be written (ENOSPC, EROFS, EACCES)
 * is said in the log, in the outcome, and in the context note.
 */

const MEETING = 'Meetings/2026-11-30 Sync.md';
const SUMMARY = 'Meetings/Summaries/2026-11-30 Sync.md';
const CONTEXT = 'Meetings/Context/2026-11-30 Sync.md';
const FILES = {
  [MEETING]: '---\ntitle: Sync\nattendees: [Alice]\ntranscript: "[[Meetings/Transcripts/2026-11-30 Sync]]"\n---\n',
  'Meetings/Transcripts/2026-11-30 Sync.md': '---\nmeeting: "[[Meetings/2026-11-30 Sync]]"\nstate: finished\n---\n[00:00:05] Alice: We ship on Friday.\n',
};
const NOW = '2026-11-30T10:00:00Z';
const config = testConfig({ Reconnect: { Attempts: 0, DelaySeconds: 0 } });

/** Throws `err` at the `at`-th call counted by `counter` (0: never). */
class Injector {
  calls = 0;
  constructor(readonly at = 0, readonly err: () => Error = () => new Error('injected failure')) {}
  tick(): void {
    if (++this.calls === this.at) throw this.err();
  }
}

/** Every function of `fs` counted, the injected one throwing (as a rejected promise). */
function countedFs(fs: Fs, inject: Injector): Fs {
  return new Proxy(fs, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          inject.tick();
        } catch (err) {
          return Promise.reject(err);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** A logger whose every call is counted, the injected one throwing. */
function countedLogger(inject: Injector, lines: string[] = []): Logger {
  const log: Record<string, unknown> = {};
  for (const level of ['trace', 'debug', 'info', 'warn', 'error', 'fatal']) {
    log[level] = (...args: unknown[]) => {
      inject.tick();
      lines.push(args.map((a) => (typeof a === 'string' ? a : '')).join(''));
    };
  }
  log.child = () => log;
  log.level = 'info';
  log.isLevelEnabled = () => true;
  return log as unknown as Logger;
}

/** The model: read the transcript, write the summary, finish; every request counted. */
function countedModel(inject: Injector, summary = true): ModelClient {
  let turn = 0;
  return {
    api: 'chat-completions',
    async complete(): Promise<ModelResponse> {
      inject.tick();
      turn++;
      if (turn === 1) return { content: '', toolCalls: [{ id: 'c1', name: 'read_transcript', arguments: '{}' }] };
      if (turn === 2 && summary) {
        return { content: '', toolCalls: [{ id: 'c2', name: 'write_summary', arguments: JSON.stringify({ content: '## Summary\nShip on Friday.\n' }) }] };
      }
      if (summary) return { content: 'Done.', toolCalls: [] };
      throw new ModelError('HTTP 400 from the endpoint: bad request.', { kind: 'http', status: 400 });
    },
  };
}

type Seam = 'fs' | 'clock' | 'log' | 'model';

interface Injected {
  outcome: RunOutcome;
  /** The vault without the injection: what a person finds afterwards. */
  vault: Vault;
  lines: string[];
}

async function runWith(seam: Seam | undefined, at: number, counters: Record<Seam, Injector> | undefined, summary: boolean): Promise<Injected> {
  const inject = (s: Seam) => counters?.[s] ?? new Injector(seam === s ? at : 0);
  const [fsInj, clockInj, logInj, modelInj] = (['fs', 'clock', 'log', 'model'] as const).map(inject);
  const base = memoryFs(FILES);
  const vault = new Vault(countedFs(base, fsInj!), config.layout);
  const lines: string[] = [];
  const deps = pipelineDeps(vault, config, NOW, {
    log: countedLogger(logInj!, lines),
    model: countedModel(modelInj!, summary),
    clock: () => {
      clockInj!.tick();
      return new Date(NOW);
    },
  });
  const outcome = await summarizeMeeting(deps, vault.abs(MEETING));
  return { outcome, vault: new Vault(base, config.layout), lines };
}

async function stateOf(vault: Vault) {
  const read = async (rel: string) => {
    try {
      return parseNote(await vault.read(vault.abs(rel))).data;
    } catch {
      return undefined;
    }
  };
  return { summary: await read(SUMMARY), context: await read(CONTEXT) };
}

describe.each([
  ['a run that fails (the model refuses at the end)', false],
  ['a run that succeeds', true],
] as const)('%s, with a throw injected at each step', (_label, summary) => {
  it.each<Seam>(['fs', 'clock', 'log', 'model'])('%s: every injection point ends with a report (or the summary) and a settled context note', async (seam) => {
    const counters = { fs: new Injector(), clock: new Injector(), log: new Injector(), model: new Injector() };
    const clean = await runWith(undefined, 0, counters, summary);
    expect(clean.outcome.status).toBe(summary ? 'done' : 'failed');
    const steps = counters[seam].calls;
    expect(steps).toBeGreaterThan(0);
    const misses: string[] = [];
    for (let at = 1; at <= steps; at++) {
      const { outcome, vault } = await runWith(seam, at, undefined, summary);
      const { summary: s, context } = await stateOf(vault);
      const reported = s?.status === 'failed' || s?.status === 'done';
      const settled = context === undefined || context.state !== 'summarizing';
      if (!reported || !settled || (outcome.status === 'failed' && s?.status !== 'failed' && s?.status !== 'done')) {
        misses.push(`${seam} #${at}: summary ${String(s?.status)}, context ${String(context?.state)}, outcome ${outcome.status} ${outcome.error ?? ''}`);
      }
    }
    expect(misses).toEqual([]);
  });
});

describe('a failure report that cannot be written (issue #24 point 9)', () => {
  it.each(['ENOSPC', 'EROFS', 'EACCES'])('%s on the summaries folder: the log, the outcome and the context note say so', async (code) => {
    const base = memoryFs(FILES);
    const fs = new Proxy(base, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const target0 = String(args[0] ?? '');
          const writes = ['writeFile', 'open', 'rename', 'copyFile', 'mkdir'].includes(String(prop));
          if (writes && (target0.includes('/Meetings/Summaries/') || String(args[1] ?? '').includes('/Meetings/Summaries/'))) {
            return Promise.reject(Object.assign(new Error(`${code}: cannot write, ${String(prop)} '${target0}'`), { code }));
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const vault = new Vault(fs, config.layout);
    const lines: string[] = [];
    const deps = pipelineDeps(vault, config, NOW, { log: countedLogger(new Injector(), lines), model: countedModel(new Injector(), false) });
    const outcome = await summarizeMeeting(deps, vault.abs(MEETING));
    expect(outcome.status).toBe('failed');
    expect(outcome.reportProblem).toContain(code);
    expect(lines.some((l) => l.startsWith(`could not write the failure report ${SUMMARY}:`) && l.includes(code))).toBe(true);
    const { summary, context } = await stateOf(vault);
    expect(summary).toBeUndefined();
    expect(context?.state).toBe('error');
    const body = await vault.read(vault.abs(CONTEXT));
    expect(body).toContain(`its failure report could not be written to ${SUMMARY}`);
    expect(body).toContain('tries again at the next catch-up');
  });
});
