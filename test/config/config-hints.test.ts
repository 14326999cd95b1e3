import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, resolveConfig } from '../../src/config.js';
import { closest, jsonSyntaxProblem } from '../../src/config-hints.js';
import { memoryFs } from '../helpers/memfs.js';

/** docs/design.md §5: a configuration error says where and what to write instead. */
async function problemsOf(text: string): Promise<string[]> {
  const fs = memoryFs({ '/c/config.json': text });
  try {
    await loadConfig({ configPath: '/c/config.json', fs, env: {}, cwd: '/' });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration errors that say how to fix them', () => {
  it('an unknown key close to a known one says which it was meant to be', async () => {
    const problems = await problemsOf('{ "MeetingAssistant": { "Endpoint": { "Modle": "x" }, "Htpp": {}, "Agent": { "Language": "de", "Lang": "x" } } }');
    expect(problems).toContain('MeetingAssistant.Endpoint.Modle: unknown key (did you mean Model?)');
    expect(problems).toContain('MeetingAssistant.Htpp: unknown key (did you mean Http?)');
    // Far from every key, or the key is there already: no guess.
    expect(problems).toContain('MeetingAssistant.Agent.Lang: unknown key');
  });

  it('a case slip and a swap are typos too; a short unrelated key is not', () => {
    expect(closest('vaultpath', ['VaultPath', 'Folders'])).toBe('VaultPath');
    expect(closest('Mdoel', ['Model', 'BaseUrl'])).toBe('Model');
    expect(closest('Foo', ['Api', 'Model'])).toBeUndefined();
  });

  it('a file without the MeetingAssistant section says so, naming the keys that belong inside it', async () => {
    expect(await problemsOf('{ "VaultPath": "./vault", "Endpoint": {} }')).toEqual([
      'no "MeetingAssistant" section: the settings go inside { "MeetingAssistant": { … } }; VaultPath, Endpoint belong inside it',
    ]);
    expect(await problemsOf('{ "meetingassistant": {} }')).toEqual([
      'no "MeetingAssistant" section: found "meetingassistant" (did you mean MeetingAssistant?)',
    ]);
    expect((await problemsOf('[1, 2]'))[0]).toMatch(/must hold a JSON object with a "MeetingAssistant" section/);
  });

  it('a JSON syntax error names its line and column', async () => {
    const text = '{\n  "MeetingAssistant": {\n    "VaultPath": "./vault",\n  }\n}\n';
    const [problem] = await problemsOf(text);
    expect(problem).toMatch(/^not valid JSON at line 4, column 3: /);
    expect(problem).not.toMatch(/position/);
    expect((await problemsOf('{ "MeetingAssistant": {'))[0]).toMatch(/^not valid JSON at line 1, column 24: /);
  });

  it('places both forms of the message: Node 20 (at position) and Node 22+ (line and column added)', () => {
    const text = 'ab\ncd';
    expect(jsonSyntaxProblem(text, new SyntaxError('Unexpected token x in JSON at position 4'))).toBe('not valid JSON at line 2, column 2: Unexpected token x');
    expect(jsonSyntaxProblem(text, new SyntaxError("Expected ',' after property value in JSON at position 4 (line 2 column 2)"))).toBe(
      "not valid JSON at line 2, column 2: Expected ',' after property value",
    );
  });

  it('resolveConfig without a file (defaults and environment only) is not a missing section', () => {
    expect(resolveConfig({}).settings.Http.Port).toBe(4777);
  });
});
