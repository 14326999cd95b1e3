import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ConfigError, DEFAULT_SETTINGS, loadConfig, releaseConfigSchemas, resolveConfig } from '../../src/config.js';
import { memoryFs } from '../helpers/memfs.js';
import { guideSection } from '../helpers/guide.js';

describe('config', () => {
  it('reports three mistakes at once, each by its full path', () => {
    const err = (() => {
      try {
        resolveConfig({
          MeetingAssistant: { Http: { Port: 70000 }, Agent: { MaxTurns: 'many' }, Reconnect: { Retries: 1 } },
        });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.problems).toHaveLength(3);
    expect(err.message).toContain('MeetingAssistant.Http.Port');
    expect(err.message).toContain('MeetingAssistant.Agent.MaxTurns: expected number, got string "many"');
    expect(err.message).toContain('MeetingAssistant.Reconnect.Retries: unknown key');
  });

  it("refuses a Daemon.HeartbeatSeconds above an hour: Node's timers take at most 2^31 ms, and a longer one would beat every millisecond", () => {
    expect(() => resolveConfig({ MeetingAssistant: { Daemon: { HeartbeatSeconds: 3_000_000 } } })).toThrow(/MeetingAssistant\.Daemon\.HeartbeatSeconds/);
    expect(() => resolveConfig({ MeetingAssistant: { Daemon: { HeartbeatSeconds: 0 } } })).toThrow(/MeetingAssistant\.Daemon\.HeartbeatSeconds/);
    expect(resolveConfig({ MeetingAssistant: { Daemon: { HeartbeatSeconds: 3600 } } }).settings.Daemon.HeartbeatSeconds).toBe(3600);
  });

  it('refuses a cron expression that is not one and a log file path pino-roll cannot take, as every other mistake', () => {
    expect(() => resolveConfig({ MeetingAssistant: { Daemon: { ReconcileSchedule: 'every five minutes' } } })).toThrow(
      /MeetingAssistant\.Daemon\.ReconcileSchedule: not a valid cron expression/,
    );
    expect(() => resolveConfig({ MeetingAssistant: { Logging: { File: './logs/a?b.log' } } })).toThrow(
      /MeetingAssistant\.Logging\.File: a log file path may not contain/,
    );
    expect(resolveConfig({ MeetingAssistant: { Daemon: { ReconcileSchedule: '0 */2 * * 1-5' }, Logging: { File: '~/logs/ma.log' } } }).logFile).toMatch(/ma\.log$/);
  });

  it('refuses a Calendar.Projects expression that is no regular expression and a Calendar.TimeZone no zone, each by its full path (§5, §12)', () => {
    const problems = (() => {
      try {
        resolveConfig({ MeetingAssistant: { Calendar: { TimeZone: 'Mars/Olympus', Projects: { Apollo: 'apollo', Hermes: '(hermes' } } } });
      } catch (e) {
        return (e as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(problems).toEqual([
      expect.stringMatching(/^MeetingAssistant\.Calendar\.TimeZone: not a time zone this machine knows/),
      expect.stringMatching(/^MeetingAssistant\.Calendar\.Projects\.Hermes: not a valid regular expression: .*Unterminated group/),
    ]);
    // The environment's override is checked as the file is.
    expect(() => resolveConfig({}, { env: { MeetingAssistant__Calendar__TimeZone: 'Europe/Nowhere' } })).toThrow(/MeetingAssistant\.Calendar\.TimeZone/);
    const good = resolveConfig({ MeetingAssistant: { Calendar: { TimeZone: 'Europe/Berlin', Projects: { Apollo: '\\bapollo\\b' } } } }).settings.Calendar;
    expect([good.TimeZone, good.Projects]).toEqual(['Europe/Berlin', { Apollo: '\\bapollo\\b' }]);
    expect(resolveConfig({}).settings.Calendar.TimeZone).toBe('');
  });

  it('coerces environment overrides to the key type, matching segments without regard to case', () => {
    const config = resolveConfig(
      {},
      {
        env: {
          MeetingAssistant__Reconnect__Attempts: '5',
          MeetingAssistant__agent__initialprompt: 'Be brief.',
          MeetingAssistant__Http__Enabled: 'false',
        },
      },
    );
    expect(config.settings.Reconnect.Attempts).toBe(5);
    expect(config.settings.Agent.InitialPrompt).toBe('Be brief.');
    expect(config.settings.Http.Enabled).toBe(false);
  });

  it('refuses an override that does not fit the key type or names no key', () => {
    expect(() =>
      resolveConfig({}, { env: { MeetingAssistant__Reconnect__Attempts: 'lots', MeetingAssistant__Nope: '1' } }),
    ).toThrow(/Reconnect\.Attempts expects a number[\s\S]*MeetingAssistant\.Nope is not a key/);
  });

  it('has the defaults of the design', () => {
    expect(DEFAULT_SETTINGS.Endpoint.Api).toBe('chat-completions');
    expect(DEFAULT_SETTINGS.ContextWindow).toEqual({
      Tokens: 32768,
      MaxOutputTokens: 4096,
      Compaction: { Enabled: true, Threshold: 0.2, CompactPath: '/responses/compact' },
    });
    expect(DEFAULT_SETTINGS.Daemon.ReconcileSchedule).toBe('*/5 * * * *');
    expect(DEFAULT_SETTINGS.Http.Port).toBe(4777);
  });

  it('checks the ranges of the design', () => {
    const bad = {
      Reconnect: { Attempts: -1, DelaySeconds: -1 },
      ContextWindow: { Tokens: 1000, MaxOutputTokens: 1000, Compaction: { Threshold: 1 } },
      Agent: { MaxTurns: 0, SearchMaxResults: 1.5, SearchTimeoutSeconds: 0 },
      Daemon: { MaxConcurrentSummaries: 0, ShutdownGraceSeconds: 0 },
      Endpoint: { TimeoutSeconds: 0 },
      Http: { Port: 0 },
    };
    try {
      resolveConfig({ MeetingAssistant: bad });
      throw new Error('expected a ConfigError');
    } catch (e) {
      const paths = (e as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(paths.sort()).toEqual(
        [
          'MeetingAssistant.Reconnect.Attempts',
          'MeetingAssistant.Reconnect.DelaySeconds',
          'MeetingAssistant.ContextWindow.Tokens',
          'MeetingAssistant.ContextWindow.Compaction.Threshold',
          'MeetingAssistant.Agent.MaxTurns',
          'MeetingAssistant.Agent.SearchMaxResults',
          'MeetingAssistant.Agent.SearchTimeoutSeconds',
          'MeetingAssistant.Daemon.MaxConcurrentSummaries',
          'MeetingAssistant.Daemon.ShutdownGraceSeconds',
          'MeetingAssistant.Endpoint.TimeoutSeconds',
          'MeetingAssistant.Http.Port',
        ].sort(),
      );
    }
  });

  it('sizes the answer reserve to a quarter of a small ContextWindow.Tokens when MaxOutputTokens is left out; an explicit one must leave room', () => {
    const output = (contextWindow: Record<string, unknown>) => resolveConfig({ MeetingAssistant: { ContextWindow: contextWindow } }).settings.ContextWindow.MaxOutputTokens;
    // The advice for a server with 4,096 tokens is accepted as it is.
    expect(output({ Tokens: 4096 })).toBe(1024);
    expect(output({ Tokens: 8192 })).toBe(2048);
    expect(output({ Tokens: 32768 })).toBe(4096);
    expect(output({ Tokens: 131072 })).toBe(4096);
    expect(output({ Tokens: 8192, MaxOutputTokens: 4096 })).toBe(4096);
    expect(resolveConfig({}, { env: { MeetingAssistant__ContextWindow__Tokens: '4096' } }).settings.ContextWindow.MaxOutputTokens).toBe(1024);
    expect(resolveConfig({}, { env: { MeetingAssistant__ContextWindow__MaxOutputTokens: '512' } }).settings.ContextWindow.MaxOutputTokens).toBe(512);
    expect(() => output({ Tokens: 4096, MaxOutputTokens: 4096 })).toThrow(
      /ContextWindow\.Tokens: must be greater than ContextWindow\.MaxOutputTokens \(4096\).*leave MaxOutputTokens out/,
    );
  });

  it('resolves the vault relative to the config file, ~ to the home folder, folders inside the vault', async () => {
    const fs = memoryFs({
      '/etc/ma/config.json': JSON.stringify({
        MeetingAssistant: { VaultPath: 'notes', Folders: { Projects: '/srv/projects' }, Logging: { File: 'logs/ma.log' } },
      }),
    });
    const config = await loadConfig({ configPath: '/etc/ma/config.json', fs, env: {}, cwd: '/' });
    expect(config.layout.root).toBe('/etc/ma/notes');
    expect(config.layout.folders.Transcripts).toBe('/etc/ma/notes/Meetings/Transcripts');
    expect(config.layout.folders.Projects).toBe('/srv/projects');
    expect(config.logFile).toBe('/etc/ma/logs/ma.log');
    const home = resolveConfig({ MeetingAssistant: { VaultPath: '~/Vault' } }, { homedir: '/home/ann' });
    expect(home.layout.root).toBe('/home/ann/Vault');
  });

  it('finds ./config.json, then $XDG_CONFIG_HOME/meeting-assistant/config.json', async () => {
    const fs = memoryFs({ '/xdg/meeting-assistant/config.json': '{"MeetingAssistant":{"VaultPath":"/v"}}' });
    const config = await loadConfig({ fs, env: { XDG_CONFIG_HOME: '/xdg' }, cwd: '/work' });
    expect(config.file).toBe('/xdg/meeting-assistant/config.json');
    expect(config.layout.root).toBe('/v');
  });

  it('fails clearly when --config names a missing file or invalid JSON', async () => {
    const fs = memoryFs({ '/c/bad.json': '{ nope' });
    await expect(loadConfig({ configPath: '/c/missing.json', fs, env: {}, cwd: '/' })).rejects.toThrow(
      /config file not found: \/c\/missing.json/,
    );
    await expect(loadConfig({ configPath: '/c/bad.json', fs, env: {}, cwd: '/' })).rejects.toThrow(/not valid JSON/);
  });

  it('takes the API key from ApiKey first, else the named environment variable', () => {
    const env = { MY_KEY: 'sk-env' };
    expect(
      resolveConfig({ MeetingAssistant: { Endpoint: { ApiKeyEnvironmentVariable: 'MY_KEY' } } }, { env }).apiKey,
    ).toBe('sk-env');
    expect(
      resolveConfig({ MeetingAssistant: { Endpoint: { ApiKey: 'sk-file', ApiKeyEnvironmentVariable: 'MY_KEY' } } }, { env })
        .apiKey,
    ).toBe('sk-file');
    expect(resolveConfig({}, { env: {} }).apiKey).toBeUndefined();
  });
});

describe('the schemas once the daemon has its configuration', () => {
  const zodLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((id) => id.includes(`${path.sep}node_modules${path.sep}zod${path.sep}`));

  it('are let go with zod, and a configuration read later is checked the same', () => {
    const raw = { MeetingAssistant: { VaultPath: '/v', Agent: { MaxTurns: 12 } } };
    const before = resolveConfig(raw);
    expect(zodLoaded()).toBe(true);
    releaseConfigSchemas();
    expect(zodLoaded()).toBe(false);
    expect(resolveConfig(raw)).toEqual(before);
    expect(zodLoaded()).toBe(true);
    releaseConfigSchemas();
    expect(() => resolveConfig({ MeetingAssistant: { Agent: { MaxTurns: 0 } } })).toThrow(ConfigError);
  });
});

describe('documented configuration', () => {
  /** `Section.Key` paths of every setting (leaves of the defaults). */
  const leaves = (value: unknown, prefix = ''): string[] =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k))
      : [prefix];
  const keys = leaves(DEFAULT_SETTINGS);

  it('config.example.json carries every key, Notify.* included, and nothing else', () => {
    const example = JSON.parse(readFileSync(new URL('../../config.example.json', import.meta.url), 'utf8')) as {
      MeetingAssistant: unknown;
    };
    expect(keys).toEqual(expect.arrayContaining(['Notify.OnSuccess', 'Notify.OnFailure']));
    expect(leaves(example.MeetingAssistant).sort()).toEqual([...keys].sort());
  });

  it("the guide's configuration table has a row for every key", () => {
    const readme = guideSection('## Configuration').join('\n');
    const rows = new Set([...readme.matchAll(/^\| `([A-Za-z.]+)` \|/gm)].map((m) => m[1]));
    expect(keys.filter((k) => !rows.has(k))).toEqual([]);
  });
});
