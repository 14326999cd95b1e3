import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/cues.js';
import { commandTranscriber, expandArgs } from '../../src/import/transcribe.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'import', 'stand-in-transcriber.mjs');
const dir = mkdtempSync(path.join(os.tmpdir(), 'ma-transcribe-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const recording = path.join(dir, 'team call.m4a');
writeFileSync(recording, 'the budget');

const transcriber = (mode: string, timeoutSeconds = 60) =>
  commandTranscriber({ command: [process.execPath, SCRIPT, mode, '{input}', '{output_base}'], timeoutSeconds })!;

describe('Import.TranscribeCommand (docs/design.md §9)', () => {
  it('expands {input}, {output_dir} and {output_base} inside arguments', () => {
    expect(expandArgs(['x', '-f', '{input}', '--out={output_base}.json', '{output_dir}'], { input: '/a b.wav', output_dir: '/t', output_base: '/t/a b' })).toEqual([
      'x', '-f', '/a b.wav', '--out=/t/a b.json', '/t',
    ]);
  });

  it('no command: no transcriber', () => {
    expect(commandTranscriber({ command: [], timeoutSeconds: 1 })).toBeUndefined();
  });

  it('reads what the command left in {output_dir}', async () => {
    const file = await transcriber('ok')(recording);
    expect(file.name).toBe('team call.json');
    expect(JSON.parse(Buffer.from(file.bytes).toString('utf8')).transcription[0].text).toBe(' I heard: the budget.');
  });

  it('a failing command: the error carries its last stderr lines', async () => {
    const err = (await transcriber('fail')(recording).catch((e: unknown) => e)) as ImportError;
    expect(err).toBeInstanceOf(ImportError);
    expect(err.message).toMatch(/failed \(exit code 3\)/);
    const lines = err.stderr!.split('\n');
    expect(lines).toHaveLength(20);
    expect(lines.at(-1)).toBe('error: failed to read audio file');
  });

  it('a command that runs too long is stopped at the timeout', async () => {
    await expect(transcriber('hang', 0.5)(recording)).rejects.toThrow(/Import\.TranscribeTimeoutSeconds \(0\.5 s\)/);
  });

  it.skipIf(process.platform === 'win32')('the timeout stops what a wrapper script started too (its child held stderr open, the import waited for it)', async () => {
    const pidFile = path.join(dir, 'grandchild.pid');
    const wrapper = `"${process.execPath}" "${SCRIPT}" hang "$1" "$2" & echo $! > "${pidFile}"; wait`;
    const wrapped = commandTranscriber({ command: ['/bin/sh', '-c', wrapper, 'sh', '{input}', '{output_base}'], timeoutSeconds: 0.5 })!;
    await expect(wrapped(recording)).rejects.toThrow(/Import\.TranscribeTimeoutSeconds \(0\.5 s\)/);
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    const alive = () => {
      try {
        process.kill(grandchild, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (const deadline = Date.now() + 5000; alive() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });

  it('exit 0 without a transcript, and a program that does not exist, are clear errors', async () => {
    await expect(transcriber('none')(recording)).rejects.toThrow(/left no transcript/);
    await expect(commandTranscriber({ command: ['/no/such/whisper-cli'], timeoutSeconds: 5 })!(recording)).rejects.toThrow(/could not be started: no such program/);
  });
});
