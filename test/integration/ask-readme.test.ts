import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/daemon-process.js';
import { lastToolResults, type ScriptedServer, startScriptedServer } from '../helpers/scripted-server.js';
import { guideSection } from '../helpers/guide.js';

/**
 * The guide's two example questions to the example vault (docs/asking.md, "Asking your meetings"): the real
 * CLI on a copy of example-vault/, a scripted model whose tool calls are below and whose
 * answer is the README's text. What `ask` prints must be what the README shows, and what the
 * tools returned must hold the facts the scripted answer states: an honest example.
 */

interface Example {
  question: string;
  answer: string;
  output: string;
}

function readmeExamples(): Example[] {
  const part = guideSection('## Asking your meetings').join('\n');
  return [...part.matchAll(/```text\n\$ meeting-assistant ask "([^"]+)"\n([\s\S]*?)```/g)].map((m) => ({
    question: m[1]!,
    output: m[2]!,
    answer: m[2]!.split('\n\n')[0]!,
  }));
}

/** The calls the scripted model makes for each question, and facts their results must hold. */
const CALLS: Record<string, { calls: { name: string; arguments: object }[][]; facts: RegExp[] }> = {
  'Who fixes the flaky iOS sync test?': {
    calls: [[{ name: 'list_action_items', arguments: { owner: 'Bob', status: 'all' } }]],
    facts: [/"owner":"Bob"/, /flaky iOS sync test before the code freeze/],
  },
  'When is the 2.4 release now?': {
    calls: [
      [{ name: 'search_meetings', arguments: { query: '(?i)release date', in: 'all' } }],
      [
        { name: 'read_meeting', arguments: { meeting: 'Meetings/Summaries/2026-11-23 0900 Release Sync.md' } },
        { name: 'read_meeting', arguments: { meeting: 'Meetings/2026-11-30 0900 Release Sync.md', part: 'transcript', from: 1, to: 40 } },
      ],
    ],
    facts: [/Target release date for 2\.4: Wednesday, December 3, if RC1 is tagged by November 30/, /ALPHA-212 blocks RC1/, /New release date for 2\.4 is December eighth/, /three days of beta/, /start the rollout on a Friday/],
  },
};

let dir: string;
let server: ScriptedServer;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ma-ask-readme-'));
  cpSync('example-vault', path.join(dir, 'vault'), { recursive: true });
  server = await startScriptedServer();
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('README: two questions to the example vault', () => {
  const examples = readmeExamples();
  it('the section has its two examples', () => {
    expect(examples.map((e) => e.question)).toEqual(Object.keys(CALLS));
  });

  it.each(examples)('$question', async (example) => {
    const script = CALLS[example.question]!;
    const first = server.modelRequests().length;
    server.script(...script.calls.map((calls) => ({ reply: { toolCalls: calls } })), { reply: { content: example.answer } });
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ MeetingAssistant: { VaultPath: path.join(dir, 'vault'), Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', ApiKeyEnvironmentVariable: '' }, Logging: { Level: 'warn' } } }));
    const result = await runCli(['ask', example.question, '--config', config], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(example.output);
    const results = server
      .modelRequests()
      .slice(first + 1)
      .flatMap((req) => lastToolResults(req).map((r) => r.output))
      .join('\n');
    for (const fact of script.facts) expect(results).toMatch(fact);
  });
});
