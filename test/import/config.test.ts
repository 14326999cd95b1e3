import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config.js';

const config = (raw: Record<string, unknown>) => resolveConfig({ MeetingAssistant: { VaultPath: '/vault', ...raw } }, { cwd: '/' });

describe('import configuration (docs/design.md §9)', () => {
  it('has the design defaults', () => {
    const c = config({});
    expect(c.layout.folders.Inbox).toBe('/vault/Meetings/Inbox');
    expect(c.layout.folders.Sources).toBe('/vault/Meetings/Sources');
    expect(c.settings.Import).toEqual({ SettleSeconds: 5, TranscribeCommand: [], TranscribeTimeoutSeconds: 7200 });
  });

  it('takes a transcriber command and an environment override of the settle time', () => {
    const c = resolveConfig(
      { MeetingAssistant: { VaultPath: '/v', Import: { TranscribeCommand: ['whisper-cli', '-f', '{input}'] } } },
      { cwd: '/', env: { MeetingAssistant__Import__SettleSeconds: '0.5' } },
    );
    expect(c.settings.Import.TranscribeCommand).toEqual(['whisper-cli', '-f', '{input}']);
    expect(c.settings.Import.SettleSeconds).toBe(0.5);
  });

  it('names every bad import key by its full path', () => {
    let error: ConfigError | undefined;
    try {
      config({ Import: { SettleSeconds: -1, TranscribeCommand: 'whisper-cli -f x', TranscribeTimeoutSeconds: 0 }, Folders: { Inbox: '' } });
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = error!.problems.join('\n');
    expect(text).toMatch(/MeetingAssistant\.Import\.SettleSeconds/);
    expect(text).toMatch(/MeetingAssistant\.Import\.TranscribeCommand: expected array/);
    expect(text).toMatch(/MeetingAssistant\.Import\.TranscribeTimeoutSeconds/);
    expect(text).toMatch(/MeetingAssistant\.Folders\.Inbox/);
  });
});
