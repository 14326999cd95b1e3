import { parseNote } from '../../src/vault/format/frontmatter.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RecordedRequest, type ScriptedServer, type Step, startScriptedServer, toolCallsSoFar, toolNamesOf, userTexts } from './scripted-server.js';
import { cleanUpAll, type DaemonProcess, freePort, makeTempSetup, type StartOptions, startDaemonProcess, type TempSetup } from './daemon-process.js';

/** Shared pieces of the daemon integration tests: notes, the scripted "model", config. */

export { meetingNote, transcriptNote } from './notes.js';

export const SUMMARY_BODY = '## Summary\nThe team reviewed the release.\n## Decisions\n- Ship on Friday.\n## Next steps\n- Alice: tag it.\n';

/**
 * A model that writes the summary, then says it is done: any number of runs, in any interleaving.
 * Offered no write_summary (a run's project phase, issue 21), it is done at once.
 */
export function summarizingModel(delayMs = 0): Step {
  const step: Step = {
    handler: (req: RecordedRequest): Step =>
      toolCallsSoFar(req).some((c) => c.name === 'write_summary') || !toolNamesOf(req).includes('write_summary')
        ? { reply: { content: 'Done.' } }
        : { reply: { toolCalls: [{ name: 'write_summary', arguments: { content: SUMMARY_BODY } }] } },
  };
  return delayMs > 0 ? { delayMs, then: step } : step;
}

/** An endpoint that fails every request with a non-retried error. */
export const failingModel: Step = {
  status: 400,
  body: { error: { message: 'model "test-model" is not loaded', type: 'invalid_request_error', param: null, code: null } },
};

/** The meeting a model request belongs to: its first user message names the meeting note. */
export function meetingOfRequest(req: RecordedRequest): string | undefined {
  const first = userTexts(req)[0] ?? '';
  return /Meetings\/[^\n"]*?\.md/.exec(first)?.[0];
}

/** Frontmatter data of a note, or undefined when it is missing or does not parse (yet). */
export function dataOf(setup: TempSetup, rel: string): Record<string, unknown> | undefined {
  const text = setup.readIfExists(rel);
  if (text === undefined) return undefined;
  try {
    return parseNote(text).data;
  } catch {
    return undefined;
  }
}

/**
 * The hooks of a file of daemon tests: one scripted server for the whole file; after each test
 * (`each`) or after the file (`all`), every daemon killed and every temporary vault removed;
 * with `each`, the server's fallback model is cleared after each test too. `server` is there
 * once tests run.
 * Tests that run at once take a server of their own from testScope.
 */
export function daemonTestFile(cleanUp: 'each' | 'all' = 'each'): { readonly server: ScriptedServer } {
  let server: ScriptedServer | undefined;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  if (cleanUp === 'each') {
    afterEach(async () => {
      await cleanUpAll();
      server?.setFallback(undefined);
    });
  }
  afterAll(async () => {
    await cleanUpAll();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('the scripted server starts in beforeAll; use it inside a hook or a test');
      return server;
    },
  };
}

/**
 * What one test owns when the tests of a file run at once (`it.concurrent`, with
 * `daemonTestFile('all')`): a scripted server of its own, whose fallback and request count no
 * other test changes, and the daemons it starts, all ended once it finishes (pass the test
 * context's `onTestFinished`), not when another test beside it does. `fallback`: the server's
 * model from the start.
 */
export interface TestScope {
  server: ScriptedServer;
  start(options: StartOptions): Promise<DaemonProcess>;
}

/** The test context's `onTestFinished`, as testScope needs it. */
export type OnTestFinished = (fn: () => Promise<void>) => void;

export async function testScope(onTestFinished: OnTestFinished, fallback?: Step): Promise<TestScope> {
  const server = await startScriptedServer({ fallback });
  const daemons: DaemonProcess[] = [];
  onTestFinished(async () => {
    await Promise.all(daemons.map((d) => d.kill()));
    await server.close();
  });
  return {
    server,
    start: async (options) => {
      const daemon = await startDaemonProcess(options);
      daemons.push(daemon);
      return daemon;
    },
  };
}

export interface DaemonSetup extends TempSetup {
  port: number;
}

export async function daemonSetup(server: ScriptedServer, more: Record<string, unknown> = {}): Promise<DaemonSetup> {
  const port = await freePort();
  const setup = makeTempSetup({
    Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 10 },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    // Catch-up at start only: a scheduled scan must not blur what a test shows.
    Daemon: { ReconcileSchedule: '0 0 1 1 *', ShutdownGraceSeconds: 10 },
    Http: { Port: port },
    Logging: { Level: 'debug' },
  });
  setup.configure(more);
  setup.write('Projects/Alpha/Overview.md', '# Alpha\n');
  return Object.assign(setup, { port });
}

/** Set a frontmatter key in place, as Obsidian does when a property is edited. */
export function editProperty(setup: TempSetup, rel: string, key: string, from: string, to: string): void {
  const text = setup.read(rel);
  const next = text.replace(new RegExp(`^${key}: ${from}$`, 'm'), `${key}: ${to}`);
  if (next === text) throw new Error(`${rel} has no "${key}: ${from}" line`);
  setup.write(rel, next);
}
