import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summarizeMeeting } from '../../src/meeting/pipeline.js';
import { parseNote } from '../../src/vault/format/frontmatter.js';
import { Vault } from '../../src/vault/files/vault.js';
import { memoryFs, testConfig } from '../helpers/memfs.js';
import { pipelineDeps } from '../helpers/pipeline-deps.js';
import { type ScriptedServer, type Step, instructionsOf, lastToolResults, startScriptedServer, userTexts } from '../helpers/scripted-server.js';

/**
 * The summaries people ask for (issue 16), end to end through the pipeline and the scripted
 * endpoint: the template, the language, action items as tasks, and speaker names.
 */

const MEETING = 'Meetings/2026-12-01 Stand-up.md';
const SUMMARY = 'Meetings/Summaries/2026-12-01 Stand-up.md';
const CONTEXT = 'Meetings/Context/2026-12-01 Stand-up.md';

const STAND_UP = [
  '---',
  'tags: [template]',
  'created: "{{date}}"',
  '---',
  '## Yesterday',
  'What each person finished, one bullet per person.',
  '## Today',
  'What each person works on today.',
  '## Blockers',
  'Anything in the way, with who can unblock it.',
  '',
].join('\n');
const STAND_UP_BODY = STAND_UP.split('---\n')[2]!.trim();

const CUSTOMER_CALL = '## Customer\nWho they are and what they need.\n## Commitments\nWhat we promised, as task lines.\n';

function meetingNote(extra = '', attendees = '[Alice, Bob]'): string {
  return (
    '---\ntitle: Stand-up\nstart_time: 2026-12-01T09:30:00+01:00\nend_time: 2026-12-01T09:45:00+01:00\n' +
    `attendees: ${attendees}\ntranscript: "[[Meetings/Transcripts/2026-12-01 Stand-up]]"\n${extra}---\nQuick one today.\n`
  );
}

function vaultFiles(overrides: Record<string, string | null> = {}): Record<string, string | null> {
  return {
    [MEETING]: meetingNote(),
    'Meetings/Transcripts/2026-12-01 Stand-up.md':
      '---\nmeeting: "[[Meetings/2026-12-01 Stand-up]]"\nstate: finished\n---\n' +
      '[00:00:03] Alice: Morning. Bob, you first?\n' +
      '[00:00:06] Speaker 2: Sure. I finished the export yesterday.\n' +
      '[00:00:12] **SPEAKER_01**: Same here, the importer is merged.\n' +
      '[00:00:20] Alice: Great. Speaker 2, send the draft by Thursday.\n',
    'Templates/Stand-up.md': STAND_UP,
    'Templates/Customer call.md': CUSTOMER_CALL,
    ...overrides,
  };
}

const call = (name: string, args: object) => ({ name, arguments: args });
const tools = (...toolCalls: ReturnType<typeof call>[]): Step => ({ reply: { toolCalls } });
const done: Step = { reply: { content: 'Done.' } };
const writeSummary = (content: string): Step => tools(call('write_summary', { content }));

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

/** Runs the meeting against `script`; returns the first request's instructions and user message, and the vault. */
async function run(files: Record<string, string | null>, agent: Record<string, unknown> = {}, script: Step[] = [writeSummary('## Summary\nOk.\n'), done]) {
  const config = testConfig({
    Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', TimeoutSeconds: 5 },
    Reconnect: { Attempts: 0, DelaySeconds: 0 },
    Agent: agent,
  });
  const vault = new Vault(memoryFs(files), config.layout);
  const deps = pipelineDeps(vault, config, '2026-12-01T10:00:00Z');
  const before = server.modelRequests().length;
  server.script(...script);
  const outcome = await summarizeMeeting(deps, vault.abs(MEETING));
  const requests = server.modelRequests().slice(before);
  const first = requests[0];
  const read = async (rel: string) => parseNote(await vault.read(vault.abs(rel)));
  return {
    outcome,
    requests,
    instructions: first ? instructionsOf(first)! : '',
    message: first ? userTexts(first)[0]! : '',
    read,
  };
}

describe('templates', () => {
  it("a meeting's template link: the template's body (not its properties) is the structure, and the first message names it", async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Stand-up]]"\n') }));
    expect(r.outcome.status).toBe('done');
    expect(r.instructions).toContain(`the template "Stand-up" (Templates/Stand-up.md)`);
    expect(r.instructions).toContain(`<template>\n${STAND_UP_BODY}\n</template>`);
    expect(r.instructions).not.toContain('{{date}}');
    expect(r.instructions).not.toContain('## Decisions');
    expect(r.message).toContain('Template: Stand-up (Templates/Stand-up.md)');
  });

  it('an unquoted [[link]] works too, and a note of the same name outside Folders.Templates does not make it ambiguous', async () => {
    const r = await run(
      vaultFiles({ [MEETING]: meetingNote('template: [[stand-up]]\n'), 'Notes/Stand-up.md': '## Not this one\n' }),
    );
    expect(r.instructions).toContain(STAND_UP_BODY);
    expect(r.instructions).not.toContain('Not this one');
    expect(r.message).toContain('Template: Stand-up (Templates/Stand-up.md)');
  });

  it('a template anywhere in the vault resolves like any other link', async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Retro]]"\n'), 'Team/Rituals/Retro.md': '## Went well\n## To change\n' }));
    expect(r.instructions).toContain('<template>\n## Went well\n## To change\n</template>');
    expect(r.message).toContain('Template: Retro (Team/Rituals/Retro.md)');
  });

  it('Agent.DefaultTemplate applies when the meeting names none; a meeting\'s own template wins over it', async () => {
    const byDefault = await run(vaultFiles(), { DefaultTemplate: 'Templates/Customer call.md' });
    expect(byDefault.instructions).toContain(`<template>\n${CUSTOMER_CALL.trim()}\n</template>`);
    expect(byDefault.message).toContain('Template: Customer call (Templates/Customer call.md)');

    const own = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Stand-up]]"\n') }), { DefaultTemplate: 'Customer call' });
    expect(own.instructions).toContain(STAND_UP_BODY);
    expect(own.instructions).not.toContain('## Commitments');
  });

  it('a custom Agent.InitialPrompt gets the shape too: the template, the language and the task format follow it', async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Stand-up]]"\nlanguage: de\n') }), {
      InitialPrompt: 'Summarize like a pirate.',
      TaskFormat: 'dataview',
    });
    expect(r.instructions.startsWith('Summarize like a pirate.\n\n')).toBe(true);
    expect(r.instructions).toContain(`<template>\n${STAND_UP_BODY}\n</template>`);
    expect(r.instructions).toContain('Language: write the summary in German (the meeting note asks for it).');
    expect(r.instructions).toContain('- [ ] send the draft [owner:: Alice] [due:: 2026-12-03]');
    expect(r.message).toContain('Template: Stand-up (Templates/Stand-up.md)');
  });

  it('without a template: the built-in Summary / Decisions / Next steps, named built-in', async () => {
    const r = await run(vaultFiles());
    expect(r.instructions).toMatch(/\n## Summary\n.*\n## Decisions\n.*\n## Next steps\n/);
    expect(r.instructions).not.toContain('<template>');
    expect(r.message).toContain('Template: built-in');
  });

  it("a missing template is a failure report naming it, before any model request; nothing falls back", async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Sales call]]"\n') }), { DefaultTemplate: 'Templates/Stand-up.md' }, []);
    expect(r.outcome.status).toBe('failed');
    expect(r.outcome.error).toContain('"[[Sales call]]"');
    expect(r.requests).toHaveLength(0);
    const report = await r.read(SUMMARY);
    expect(report.data.status).toBe('failed');
    expect(report.body).toContain('TemplateError');
    expect(report.body).toContain(`the template "[[Sales call]]" (the meeting note's "template") cannot be used: no such note in Templates/ or anywhere in the vault`);
    expect((await r.read(CONTEXT)).data.state).toBe('error');
  });

  it('a missing Agent.DefaultTemplate is a failure report naming the setting', async () => {
    const r = await run(vaultFiles(), { DefaultTemplate: 'Templates/Board meeting.md' }, []);
    expect(r.outcome.status).toBe('failed');
    expect((await r.read(SUMMARY)).body).toContain('"Templates/Board meeting.md" (Agent.DefaultTemplate)');
  });

  it('a template property that is no link, or a language that is no text, makes the meeting broken, with a report', async () => {
    const number = await run(vaultFiles({ [MEETING]: meetingNote('template: 42\n') }), {}, []);
    expect(number.outcome.error).toBe('BrokenMeeting: Meetings/2026-12-01 Stand-up.md: the template property is not a link: 42');
    expect((await number.read(SUMMARY)).data.status).toBe('failed');
    const list = await run(vaultFiles({ [MEETING]: meetingNote('language: [de, en]\n') }), {}, []);
    expect(list.outcome.error).toContain('the language property is not a language name or code: ["de","en"]');
  });

  it('an empty template, or two templates the link could mean, is a failure report too', async () => {
    const empty = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Empty]]"\n'), 'Templates/Empty.md': '---\ntags: [x]\n---\n\n' }), {}, []);
    expect(empty.outcome.error).toContain('Templates/Empty.md has no headings or text');
    const two = await run(
      vaultFiles({ [MEETING]: meetingNote('template: "[[Sync]]"\n'), 'Templates/a/Sync.md': '## A\n', 'Templates/b/Sync.md': '## B\n' }),
      {},
      [],
    );
    expect(two.outcome.error).toContain('could mean any of "Templates/a/Sync.md", "Templates/b/Sync.md"');
  });
});

describe('language', () => {
  it("the meeting note's language (a code) wins, with the built-in headings in it", async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('language: de\n') }), { Language: 'French' });
    expect(r.instructions).toContain('Language: write the summary in German (the meeting note asks for it).');
    expect(r.instructions).toContain('## Zusammenfassung\n');
    expect(r.instructions).toContain('## Nächste Schritte\n');
  });

  it('Agent.Language applies when the meeting says nothing: pt-BR is Brazilian Portuguese with Portuguese headings', async () => {
    const r = await run(vaultFiles(), { Language: 'pt-BR' });
    expect(r.instructions).toContain('Language: write the summary in Brazilian Portuguese.');
    expect(r.instructions).toContain('## Resumo\n');
  });

  it("without either, the transcript's own language: named, with its headings, when its words make it clear", async () => {
    const unclear = await run(vaultFiles());
    expect(unclear.instructions).toContain('Language: write the summary in the language of the transcript.');
    expect(unclear.instructions).toContain('## Summary\n');

    const german = await run(
      vaultFiles({
        'Meetings/Transcripts/2026-12-01 Stand-up.md':
          '---\nmeeting: "[[Meetings/2026-12-01 Stand-up]]"\nstate: finished\n---\n' +
          '[00:00:03] Alice: Guten Morgen. Wir haben das Release auf Freitag gelegt, und die Tests sind auch grün.\n' +
          '[00:00:09] Speaker 2: Das ist gut, aber ich habe noch nicht mit dem Kunden gesprochen.\n' +
          '[00:00:15] Alice: Dann machen wir das morgen, es ist nicht dringend, und die Doku ist auf dem Stand.\n' +
          '[00:00:21] Bob: Ich schreibe eine Mail an die Kollegen, dass wir mit der Migration warten.\n',
      }),
    );
    expect(german.instructions).toContain('Language: write the summary in German, the language of the transcript.');
    expect(german.instructions).toContain('## Zusammenfassung\n');
  });

  it('a language the heading table lacks keeps English headings and says so; a template keeps its own headings', async () => {
    const japanese = await run(vaultFiles({ [MEETING]: meetingNote('language: Japanese\n') }));
    expect(japanese.instructions).toContain('## Summary\n');
    expect(japanese.instructions).toContain('Language: write the summary in Japanese (the meeting note asks for it). Keep the headings as given.');
    const templated = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Stand-up]]"\nlanguage: es\n') }));
    expect(templated.instructions).toContain("Language: write the summary in Spanish (the meeting note asks for it). Keep the template's headings as written.");
  });
});

describe('action items as tasks', () => {
  const formats = [
    {
      format: 'tasks',
      example: '- [ ] Alice: send the draft 📅 2026-12-03',
      body: '## Summary\nOk.\n## Decisions\nNone.\n## Next steps\n- [ ] Bob: send the draft 📅 2026-12-03\n- [ ] Alice: book the room\n- [x] Bob: merge the importer\n',
      count: 3,
    },
    {
      format: 'dataview',
      example: '- [ ] send the draft [owner:: Alice] [due:: 2026-12-03]',
      body: '## Summary\nOk.\n## Next steps\n- [ ] send the draft [owner:: Bob] [due:: 2026-12-03]\n- [ ] book the room [owner:: Alice]\n```\n- [ ] not a task: inside a code block\n```\n',
      count: 2,
    },
    {
      format: 'plain',
      example: '- Alice: send the draft (by 2026-12-03)',
      body: '## Summary\n- a bullet that is no action item\n## Nächste Schritte\n- Bob: send the draft (by 2026-12-03)\n- Alice: book the room\n  - a sub-point\n',
      count: 2,
    },
  ] as const;

  for (const { format, example, body, count } of formats) {
    it(`TaskFormat ${format}: the instructions show the format, and action_items counts it in the written summary`, async () => {
      const r = await run(vaultFiles(), { TaskFormat: format }, [writeSummary(body), done]);
      expect(r.instructions).toContain(example);
      expect(r.outcome.status).toBe('done');
      const summary = await r.read(SUMMARY);
      expect(summary.data.action_items).toBe(count);
      expect(summary.data.status).toBe('done');
      expect(lastToolResults(r.requests[1]!)[0]!.output).toContain(`${count} action items`);
    });
  }

  it('the task format is said with a template too', async () => {
    const r = await run(vaultFiles({ [MEETING]: meetingNote('template: "[[Customer call]]"\n') }), { TaskFormat: 'dataview' });
    expect(r.instructions).toContain('[owner:: Alice] [due:: 2026-12-03]');
  });
});

describe('speaker names', () => {
  it('the first message lists the labels that are not names yet, next to the attendees', async () => {
    const r = await run(vaultFiles());
    const lines = r.message.split('\n');
    const attendees = lines.indexOf('Attendees: Alice, Bob');
    expect(attendees).toBeGreaterThan(-1);
    expect(lines[attendees + 1]).toMatch(/^Unnamed speakers: Speaker 2, SPEAKER_01\. .*override_speaker/);
  });

  it('lists nothing when every speaker has a name', async () => {
    const r = await run(
      vaultFiles({
        'Meetings/Transcripts/2026-12-01 Stand-up.md':
          '---\nmeeting: "[[Meetings/2026-12-01 Stand-up]]"\nstate: finished\n---\n[00:00:03] Alice: Morning.\n[00:00:06] Bob: Hi.\n',
      }),
    );
    expect(r.message).not.toContain('Unnamed speakers');
  });

  it('a summary that still says a label the agent mapped to a name is refused until it uses the name', async () => {
    const r = await run(vaultFiles(), {}, [
      tools(call('override_speaker', { speaker: 'Speaker 2', name: 'Bob' })),
      writeSummary('## Summary\nSpeaker 2 finished the export.\n'),
      writeSummary('## Summary\nBob finished the export.\n'),
      done,
    ]);
    expect(r.outcome.status).toBe('done');
    expect(lastToolResults(r.requests[2]!)[0]!.output).toMatch(/^Error: .*still says "Speaker 2", whom you identified as "Bob"/);
    expect((await r.read(SUMMARY)).body).toBe('## Summary\nBob finished the export.\n');
  });

  it('a name that contains its label, or differs from it only in case, is no stale label: the summary using the name is written', async () => {
    const r = await run(
      vaultFiles({
        'Meetings/Transcripts/2026-12-01 Stand-up.md':
          '---\nmeeting: "[[Meetings/2026-12-01 Stand-up]]"\nstate: finished\n---\n' +
          '[00:00:03] alice: Morning.\n[00:00:06] Bob: Hi.\n[00:00:09] Guest: Hello from Acme.\n',
      }),
      {},
      [
        tools(
          call('override_speaker', { speaker: 'Bob', name: 'Bob Smith' }),
          call('override_speaker', { speaker: 'alice', name: 'Alice' }),
          call('override_speaker', { speaker: 'Guest', name: 'Dana Guest' }),
        ),
        writeSummary('## Summary\nBob Smith said hi. Alice opened. Dana Guest spoke for Acme; bob smith agreed.\n'),
        done,
      ],
    );
    expect(lastToolResults(r.requests[2]!)[0]!.output).toMatch(/^Wrote the summary note/);
    expect(r.outcome.status).toBe('done');
    expect((await r.read(SUMMARY)).body).toBe('## Summary\nBob Smith said hi. Alice opened. Dana Guest spoke for Acme; bob smith agreed.\n');
  });

  // The summary first, the mapping after it.
  const summaryThenMapping = [writeSummary('## Summary\nSpeaker 2 said hi.\n'), tools(call('override_speaker', { speaker: 'Speaker 2', name: 'Carol' }))];

  it('a summary written before the mapping: override_speaker says to rewrite it, and the run does not end until it is', async () => {
    const r = await run(vaultFiles(), {}, [
      ...summaryThenMapping,
      done,
      writeSummary('## Summary\nCarol said hi.\n'),
      done,
    ]);
    expect(lastToolResults(r.requests[2]!)[0]!.output).toBe(
      'Relabelled 1 transcript line from "Speaker 2" to "Carol". The summary you wrote still says "Speaker 2": call write_summary again with the name "Carol".',
    );
    expect(userTexts(r.requests[3]!).at(-1)).toBe(
      'The summary you wrote is not finished: the summary still says "Speaker 2", whom you identified as "Carol". Call write_summary again with the names instead of the labels.',
    );
    expect(r.requests).toHaveLength(5);
    expect(r.outcome.status).toBe('done');
    expect((await r.read(SUMMARY)).body).toBe('## Summary\nCarol said hi.\n');
  });

  it('a model that ends again without rewriting the summary fails the run, naming the label; a summary without the label ends at once', async () => {
    const stale = await run(vaultFiles(), {}, [...summaryThenMapping, done, done]);
    expect(stale.outcome.status).toBe('failed');
    expect(stale.outcome.error).toContain('the summary still says "Speaker 2", whom you identified as "Carol"');
    expect((await stale.read(SUMMARY)).body).toBe('## Summary\nSpeaker 2 said hi.\n');

    const clean = await run(vaultFiles(), {}, [
      writeSummary('## Summary\nSomeone said hi.\n'),
      tools(call('override_speaker', { speaker: 'Speaker 2', name: 'Carol' })),
      done,
    ]);
    expect(lastToolResults(clean.requests[2]!)[0]!.output).toBe('Relabelled 1 transcript line from "Speaker 2" to "Carol".');
    expect(clean.requests).toHaveLength(3);
    expect(clean.outcome.status).toBe('done');
  });

  it('an unnamed label is still refused next to its name', async () => {
    const r = await run(
      vaultFiles({
        'Meetings/Transcripts/2026-12-01 Stand-up.md':
          '---\nmeeting: "[[Meetings/2026-12-01 Stand-up]]"\nstate: finished\n---\n[00:00:03] Alice: Morning.\n[00:00:09] Guest: Hello from Acme.\n',
      }),
      {},
      [
        tools(call('override_speaker', { speaker: 'Guest', name: 'Dana Guest' })),
        writeSummary('## Summary\nDana Guest (the guest) spoke for Acme.\n'),
        writeSummary('## Summary\nDana Guest spoke for Acme.\n'),
        done,
      ],
    );
    expect(lastToolResults(r.requests[2]!)[0]!.output).toMatch(/^Error: .*still says "Guest", whom you identified as "Dana Guest"/);
    expect(r.outcome.status).toBe('done');
  });
});
