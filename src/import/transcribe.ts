import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ImportError, type SourceFile } from './cues.js';
import { extensionOf } from './formats/index.js';
import type { Transcriber } from './importer.js';

/**
 * A recording becomes a transcript through `Import.TranscribeCommand` (docs/design.md §9): an
 * argv array (no shell, so no quoting problems with names) whose arguments may contain
 * `{input}` (the recording's absolute path), `{output_dir}` (an empty temporary folder) and
 * `{output_base}` (`{output_dir}/<recording name without extension>`). When it exits 0 the
 * transcript it left in the folder is read; the folder is removed afterwards.
 */

export interface TranscribeSettings {
  command: readonly string[];
  timeoutSeconds: number;
}

/** Lines of stderr kept for the error note: the end is where a tool says what went wrong. */
const STDERR_LINES = 20;
const STDERR_BYTES = 16 * 1024;
/** After the timeout's SIGTERM, how long the command has to stop before SIGKILL. */
const KILL_GRACE_MS = 5000;

/** The formats a transcriber may leave, best first (JSON carries speakers and exact times). */
const PREFERENCE = ['.json', '.vtt', '.srt', '.txt', '.docx'];

export function commandTranscriber(settings: TranscribeSettings): Transcriber | undefined {
  if (settings.command.length === 0) return undefined;
  return (recording, signal) => transcribe(settings, recording, signal);
}

export function expandArgs(args: readonly string[], values: { input: string; output_dir: string; output_base: string }): string[] {
  return args.map((arg) => arg.replace(/\{(input|output_dir|output_base)\}/g, (_, key: keyof typeof values) => values[key]));
}

async function transcribe(settings: TranscribeSettings, recording: string, signal?: AbortSignal): Promise<SourceFile> {
  const outputDir = await mkdtemp(path.join(os.tmpdir(), 'meeting-assistant-transcribe-'));
  try {
    const base = path.basename(recording, path.extname(recording));
    const argv = expandArgs(settings.command, { input: recording, output_dir: outputDir, output_base: path.join(outputDir, base) });
    await run(argv, settings.timeoutSeconds, signal);
    return await pickTranscript(outputDir, base, argv[0]!);
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

function run(argv: string[], timeoutSeconds: number, signal?: AbortSignal): Promise<void> {
  const [program, ...args] = argv;
  return new Promise((resolve, reject) => {
    let tail = '';
    let timedOut = false;
    // A process group of its own (not on Windows), so that the timeout and a stop reach what
    // a wrapper script started too: killing only the script left its child running, holding
    // the stderr pipe, and the import waited for it however long it ran.
    const group = process.platform !== 'win32';
    const child = spawn(program!, args, { stdio: ['ignore', 'ignore', 'pipe'], signal, detached: group });
    const kill = (sig: NodeJS.Signals) => {
      try {
        if (group && child.pid !== undefined) return void process.kill(-child.pid, sig);
      } catch {
        // The group is gone already; the child itself may not be.
      }
      child.kill(sig);
    };
    const onAbort = () => kill('SIGTERM');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-STDERR_BYTES);
    });
    let killer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      killer = setTimeout(() => kill('SIGKILL'), KILL_GRACE_MS);
    }, timeoutSeconds * 1000);
    const lastLines = () => tail.split(/\r?\n/).filter((l) => l.trim() !== '').slice(-STDERR_LINES).join('\n');
    child.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearTimeout(killer);
      signal?.removeEventListener('abort', onAbort);
      if (err.name === 'AbortError') return reject(new ImportError(`the transcription of ${argv.join(' ')} was stopped (the daemon is stopping)`, 'tick retry, or restart the daemon: the recording is still in the inbox'));
      reject(
        new ImportError(
          `the transcriber "${program}" could not be started: ${err.code === 'ENOENT' ? 'no such program' : err.message}`,
          'install it, or put its full path in Import.TranscribeCommand',
        ),
      );
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      clearTimeout(killer);
      signal?.removeEventListener('abort', onAbort);
      if (timedOut) {
        return reject(
          new ImportError(
            `the transcriber "${program}" was still running after Import.TranscribeTimeoutSeconds (${timeoutSeconds} s) and was stopped`,
            'raise Import.TranscribeTimeoutSeconds, or use a faster model',
            lastLines(),
          ),
        );
      }
      if (code === 0) return resolve();
      reject(new ImportError(`the transcriber "${program}" failed (${code !== null ? `exit code ${code}` : `signal ${sig}`})`, 'see its last lines below, fix the command or the recording', lastLines()));
    });
  });
}

async function pickTranscript(dir: string, base: string, program: string): Promise<SourceFile> {
  const files = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && PREFERENCE.includes(extensionOf(e.name)));
  files.sort((a, b) => PREFERENCE.indexOf(extensionOf(a.name)) - PREFERENCE.indexOf(extensionOf(b.name)));
  const best = files[0];
  if (!best) {
    throw new ImportError(
      `the transcriber "${program}" exited 0 but left no transcript (${PREFERENCE.join(', ')}) in {output_dir}`,
      'make the command write its output into {output_dir} or to {output_base} (whisper.cpp: -oj -of {output_base}; WhisperX: --output_dir {output_dir})',
    );
  }
  return { name: `${base}${extensionOf(best.name)}`, bytes: await readFile(path.join(dir, best.name)) };
}
