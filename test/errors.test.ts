import { describe, expect, it } from 'vitest';
import { isExpectedError, MeetingAssistantError } from '../src/errors.js';
import { ConfigError } from '../src/config.js';
import { ToolError } from '../src/tools/errors.js';
import { PathError } from '../src/vault/confine.js';
import { FrontmatterError } from '../src/vault/frontmatter.js';
import { BrokenMeetingError } from '../src/vault/meeting.js';
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
});
