import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_SETTINGS, resolveConfig } from '../../src/config.js';

/** The keys of docs/design.md §4's limits: Agent.WritableProjects and Agent.MaxFileBytes. */

describe('Agent.WritableProjects and Agent.MaxFileBytes', () => {
  it('default to meeting and 20 MB, and reach the vault layout', () => {
    expect(DEFAULT_SETTINGS.Agent.WritableProjects).toBe('meeting');
    expect(DEFAULT_SETTINGS.Agent.MaxFileBytes).toBe(20971520);
    const config = resolveConfig({ MeetingAssistant: { Agent: { WritableProjects: 'all', MaxFileBytes: 4096 } } });
    expect(config.settings.Agent.WritableProjects).toBe('all');
    expect(config.layout.maxFileBytes).toBe(4096);
  });

  it('refuse other values, each named by its full path', () => {
    for (const [agent, key] of [
      [{ WritableProjects: 'any' }, 'MeetingAssistant.Agent.WritableProjects'],
      [{ MaxFileBytes: 0 }, 'MeetingAssistant.Agent.MaxFileBytes'],
      [{ MaxFileBytes: 1.5 }, 'MeetingAssistant.Agent.MaxFileBytes'],
    ] as const) {
      let error: unknown;
      try {
        resolveConfig({ MeetingAssistant: { Agent: agent } });
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems.join('\n')).toContain(key);
    }
  });

  it('are in config.example.json with their defaults', () => {
    const example = JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')) as { MeetingAssistant: { Agent: Record<string, unknown> } };
    expect(example.MeetingAssistant.Agent).toMatchObject({ WritableProjects: 'meeting', MaxFileBytes: 20971520 });
  });
});
