import { describe, expect, it, vi } from 'vitest';
import { describeLanguage, summaryShapeSection } from '../../src/meeting/summary-shape.js';
import { LANGUAGES, countActionItems, guessLanguage, headingsFor } from '../../src/vault/notes/summary-sections.js';
import { isUnnamedLabel, transcriptSpeech, unnamedSpeakers } from '../../src/vault/notes/transcript.js';

describe('countActionItems', () => {
  it('counts task lines of any list marker and state, and none inside code blocks', () => {
    const body = [
      '## Next steps',
      '- [ ] Alice: send the draft 📅 2026-12-03',
      '* [x] Bob: merge the importer',
      '1. [ ] Carol: book the room',
      '  - [ ] a sub-task counts too',
      '- [] not a task (no state)',
      '- plain bullet',
      '```markdown',
      '- [ ] an example in a fence',
      '```',
    ].join('\n');
    expect(countActionItems(body, 'tasks')).toBe(4);
    expect(countActionItems(body, 'dataview')).toBe(4);
    expect(countActionItems('## Summary\nNothing to do.\n', 'tasks')).toBe(0);
  });

  it('plain: top-level items under an action heading, "None." not counted; no such heading means no count', () => {
    expect(countActionItems('## Next steps\n- Alice: a\n- Bob: b\n## Notes\n- not an action\n', 'plain')).toBe(2);
    expect(countActionItems('## Prochaines étapes\n- Alice : a\n', 'plain')).toBe(1);
    expect(countActionItems('## Action items\n1. Alice: a\n2. Bob: b\n   - detail\n', 'plain')).toBe(2);
    expect(countActionItems('## Nächste Schritte\n- Keine.\n', 'plain')).toBe(0);
    expect(countActionItems('## Commitments\n- Alice: a\n- Acme: b\n## Risks\n- c\n', 'plain')).toBe(2);
    expect(countActionItems('## Summary\n- Alice: a\n', 'plain')).toBeUndefined();
  });
});

describe('languages', () => {
  it('names the built-in languages as ICU does, without asking Intl (its data stays out of the daemon)', () => {
    const icu = new Intl.DisplayNames(['en'], { type: 'language' });
    const expected = Object.keys(LANGUAGES).map((code) => ({ name: icu.of(code), code }));
    const lookups = vi.spyOn(Intl, 'DisplayNames');
    try {
      expect(Object.keys(LANGUAGES).map((code) => describeLanguage(code))).toEqual(expected);
      expect(describeLanguage('DE')).toEqual({ name: 'German', code: 'de' });
    expect(describeLanguage('constructor')).toEqual({ name: 'constructor', code: undefined });
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
    // Others still go through Intl.
    expect(describeLanguage('ja')).toEqual({ name: 'Japanese', code: 'ja' });
  });

  it('names a code in English, keeps a name as written, and finds the headings for both', () => {
    expect(describeLanguage('de')).toEqual({ name: 'German', code: 'de' });
    expect(describeLanguage('pt-BR')).toEqual({ name: 'Brazilian Portuguese', code: 'pt-BR' });
    expect(describeLanguage('German')).toEqual({ name: 'German', code: 'de' });
    expect(describeLanguage('Français')).toEqual({ name: 'Français', code: 'fr' });
    expect(describeLanguage('Brazilian Portuguese')).toEqual({ name: 'Brazilian Portuguese', code: 'pt' });
    expect(describeLanguage('Klingon')).toEqual({ name: 'Klingon', code: undefined });
    expect(headingsFor('de-AT')?.nextSteps).toBe('Nächste Schritte');
    expect(headingsFor('no')?.summary).toBe('Sammendrag');
    expect(headingsFor('ja')).toBeUndefined();
  });
});

describe('the language a transcript is spoken in', () => {
  const german =
    '[00:01] Anna: Wir haben das Release auf Freitag gelegt, und die Tests sind auch grün.\n' +
    '[00:02] **Speaker 2:** Das ist gut, aber ich habe noch nicht mit dem Kunden gesprochen.\n' +
    '[00:03] Anna: Dann machen wir das morgen, es ist nicht dringend, und die Doku ist auf dem Stand.\n' +
    '[00:04] Ben: Ich schreibe eine Mail an die Kollegen, dass wir mit der Migration warten.\n';
  const english =
    '[00:01] Anna: We moved the release to Friday and the tests are green, so that is good.\n' +
    '[00:02] Ben: What about the customer? I have not talked to them and it is not urgent.\n' +
    '[00:03] Anna: Then we will do it tomorrow. You have the notes of the last call, and this is fine.\n';

  it('reads only what was said, without timestamps and labels', () => {
    expect(transcriptSpeech('---\nstate: finished\n---\n[00:01] **Speaker 2:** Hallo zusammen.\nno speech line\n[00:02] Ben: Hi.\n')).toBe('Hallo zusammen.\nHi.');
    expect(transcriptSpeech(english, 10)).toHaveLength(10);
  });

  it('names the language when its function words clearly win, and nothing for short or mixed speech', () => {
    expect(guessLanguage(transcriptSpeech(german))).toBe('de');
    expect(guessLanguage(transcriptSpeech(english))).toBe('en');
    expect(guessLanguage('Wir haben das Release.')).toBeUndefined();
    expect(guessLanguage(transcriptSpeech(german + english))).toBeUndefined();
  });
});

describe('speaker labels', () => {
  it('knows the labels transcribers write for unknown speakers', () => {
    for (const label of ['Speaker 2', 'SPEAKER_01', 'speaker A', 'Unknown speaker', 'Sprecher 3', 'Locuteur 1', 'S1', 'Guest', '?']) {
      expect(isUnnamedLabel(label), label).toBe(true);
    }
    for (const label of ['Alice', 'Erin Walsh', 'Speakerman', 'Sam', 'Dr. Smith']) expect(isUnnamedLabel(label), label).toBe(false);
  });

  it('lists each unnamed label once, in order, skipping attendees of that name', () => {
    const note = '---\nstate: finished\n---\n[00:01] Speaker 2: a\n[00:02] Alice: b\n[00:03] **Speaker 1:** c\n[00:04] speaker 2: d\n[00:05] Guest: e\n';
    expect(unnamedSpeakers(note, ['Alice', 'Guest'])).toEqual(['Speaker 2', 'Speaker 1']);
  });
});

describe('the size of the summary shape', () => {
  it('without a template stays within 200 tokens (chars/4) for every task format and language source', () => {
    const languages = [undefined, { value: 'pt-BR', source: 'meeting' as const }, { value: 'Japanese', source: 'config' as const }];
    for (const taskFormat of ['tasks', 'dataview', 'plain'] as const) {
      for (const language of languages) {
        const section = summaryShapeSection({ language, taskFormat });
        expect(section.length / 4, `${taskFormat} ${language?.value}`).toBeLessThanOrEqual(200);
      }
    }
  });
});
