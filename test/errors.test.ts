import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isExpectedError, MeetingAssistantError } from '../src/errors.js';
import { ConfigError } from '../src/config.js';
import { ToolError } from '../src/tools/errors.js';
import { PathError } from '../src/vault/files/confine.js';
import { FrontmatterError } from '../src/vault/format/frontmatter.js';
import { BrokenMeetingError } from '../src/vault/notes/meeting.js';
import { ModelError } from '../src/agent/types.js';
import { AgentError } from '../src/agent/loop.js';

describe('the error family', () => {
  it('names each error after its class, without the class setting it', () => {
    class SomethingWrong extends MeetingAssistantError {}
    const err = new SomethingWrong('broken', true);
    expect(err.name).toBe('SomethingWrong');
    expect(err).toBeInstanceOf(Error);
    expect(new ConfigError(['x']).name).toBe('ConfigError');
    expect(new FrontmatterError('bad').name).toBe('FrontmatterError');
    expect(String(new ToolError('no'))).toBe('ToolError: no');
  });

  it('marks the user\'s and the vault\'s errors expected, the program\'s and the endpoint\'s not', () => {
    expect([new ConfigError(['x']), new ToolError('no'), new PathError('out'), new FrontmatterError('bad'), new BrokenMeetingError('gone', '/v/M.md')].map(isExpectedError)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([new ModelError('down', { kind: 'network' }), new AgentError('max-turns', 'loop'), new Error('plain'), 'text'].map(isExpectedError)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });

  it('every error class of src/ derives from MeetingAssistantError, and no two share a name', () => {
    const src = path.join(import.meta.dirname, '..', 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const classes: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(src, file), 'utf8');
      if (file !== 'errors.ts') expect(text, file).not.toMatch(/\bextends (Error|TypeError|RangeError)\b/);
      for (const m of text.matchAll(/\bclass (\w+Error) extends/g)) classes.push(m[1]!);
    }
    expect(classes.length).toBeGreaterThan(20);
    expect(classes.filter((name, i) => classes.indexOf(name) !== i)).toEqual([]);
  });
});
