import { describe, expect, it } from 'vitest';
import { Audit, diffHunks } from '../src/audit.js';
import { memoryVault } from './helpers/memfs.js';
import { harness } from './helpers/tool-harness.js';

const NOW = new Date('2026-11-30T10:04:05.000Z');
const SUMMARY = '/vault/Meetings/Summaries/S.md';
const CONTEXT = '/vault/Meetings/Context/S.md';

function setup(files: Record<string, string> = {}) {
  const vault = memoryVault({ 'Projects/Alpha/notes.md': 'one\ntwo\nthree\nfour\nfive\nsix\n', 'Meetings/Dictionary.md': 'Kubernetes\n', ...files });
  return { vault, audit: new Audit(vault, { excluded: [SUMMARY, CONTEXT] }) };
}

describe('Audit', () => {
  it('records a project-file write and a dictionary write as removed/added lines in the context section', async () => {
    const { vault, audit } = setup();
    await audit.write('/vault/Projects/Alpha/notes.md', 'one\ntwo\nTHREE\nfour\nfive\nsix\n');
    await audit.write('/vault/Meetings/Dictionary.md', 'Kubernetes\nObsidian\n');
    expect(await vault.read('/vault/Projects/Alpha/notes.md')).toBe('one\ntwo\nTHREE\nfour\nfive\nsix\n');
    expect(audit.isEmpty).toBe(false);
    expect(audit.render(NOW)).toBe(
      [
        '## External changes (2026-11-30T10:04:05.000Z)',
        '',
        '### Projects/Alpha/notes.md',
        '```diff',
        '@@ -2,3 +2,3 @@',
        ' two',
        '-three',
        '+THREE',
        ' four',
        '```',
        '',
        '### Meetings/Dictionary.md',
        '```diff',
        '@@ -1,1 +1,2 @@',
        ' Kubernetes',
        '+Obsidian',
        '```',
        '',
      ].join('\n'),
    );
  });

  it('never records writes to the summary and context notes, but still writes them', async () => {
    const { vault, audit } = setup();
    await audit.write(SUMMARY, 'summary');
    await audit.write(CONTEXT, 'context');
    expect(await vault.read(SUMMARY)).toBe('summary');
    expect(await vault.read(CONTEXT)).toBe('context');
    expect(audit.isEmpty).toBe(true);
    expect(audit.render(NOW)).toBe('');
  });

  it('through the tools: write_summary and write_context are not audited; project and dictionary writes are', async () => {
    const h = harness();
    await h.call('write_summary', { content: 'Summary body' });
    await h.call('write_context', { content: 'notebook', mode: 'overwrite' });
    expect(h.ctx.audit.isEmpty).toBe(true);
    await h.call('read_projectfile', { project: 'Alpha', path: 'notes.md' });
    await h.call('write_projectfile', { project: 'Alpha', path: 'notes.md', content: 'Alpha line 2 (updated)', from: 2, to: 2 });
    await h.call('add_dictation_word', { word: 'Obsidian' });
    const section = h.ctx.audit.render(NOW);
    expect(h.ctx.audit.files).toEqual(['Projects/Alpha/notes.md', 'Meetings/Dictionary.md']);
    expect(section).toContain('-Alpha line 2\n+Alpha line 2 (updated)\n');
    expect(section).toContain('+Obsidian\n');
    expect(section).not.toContain('Summary body');
    expect(section).not.toContain('notebook');
  });

  it('a whole-file rewrite that changes one line shows one removed and one added line, and no ---/+++ headers', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
    const { audit } = setup({ 'Projects/Alpha/big.md': `${lines.join('\n')}\n` });
    const changed = [...lines];
    changed[99] = 'line 100 changed';
    await audit.write('/vault/Projects/Alpha/big.md', `${changed.join('\n')}\n`);
    const out = audit.render(NOW).split('\n');
    expect(out.filter((l) => l.startsWith('-'))).toEqual(['-line 100']);
    expect(out.filter((l) => l.startsWith('+'))).toEqual(['+line 100 changed']);
    expect(out.some((l) => l.startsWith('---') || l.startsWith('+++'))).toBe(false);
    expect(out.filter((l) => l.startsWith('@@'))).toEqual(['@@ -99,3 +99,3 @@']);
  });

  it('keeps one diff per file, from before the first write to after the last', async () => {
    const { audit } = setup();
    await audit.write('/vault/Projects/Alpha/notes.md', 'one\n2\nthree\nfour\nfive\nsix\n');
    await audit.write('/vault/Projects/Alpha/notes.md', 'one\n2\nthree\nfour\nfive\n6\n');
    const out = audit.render(NOW);
    expect(out.match(/### Projects\/Alpha\/notes.md/g)).toHaveLength(1);
    expect(out).toContain('-two\n+2\n');
    expect(out).toContain('-six\n+6\n');
  });

  it('a file written back to its original content is not reported', async () => {
    const { audit } = setup();
    await audit.write('/vault/Projects/Alpha/notes.md', 'changed\n');
    await audit.write('/vault/Projects/Alpha/notes.md', 'one\ntwo\nthree\nfour\nfive\nsix\n');
    expect(audit.isEmpty).toBe(true);
    expect(audit.render(NOW)).toBe('');
  });

  it('a created file shows only + lines', async () => {
    const { audit } = setup();
    await audit.write('/vault/Projects/Alpha/new/log.md', '# Log\nfirst\n');
    expect(audit.render(NOW)).toContain('### Projects/Alpha/new/log.md\n```diff\n@@ -0,0 +1,2 @@\n+# Log\n+first\n```');
  });

  it('a moved file shows its content as - lines under its old path and says where it went', async () => {
    const vault = memoryVault({ 'Meetings/Speakers/Bob.md': 'voice of Bob\n' });
    const audit = new Audit(vault, { excluded: [] });
    await audit.move('/vault/Meetings/Speakers/Bob.md', '/vault/.trash/Meetings/Speakers/Bob.md');
    expect(await vault.read('/vault/.trash/Meetings/Speakers/Bob.md')).toBe('voice of Bob\n');
    expect(audit.render(NOW)).toContain(
      '### Meetings/Speakers/Bob.md\nMoved to `.trash/Meetings/Speakers/Bob.md`.\n```diff\n@@ -1,1 +0,0 @@\n-voice of Bob\n```',
    );
  });

  it('fences a diff whose content contains backticks with a longer fence', async () => {
    const { audit } = setup();
    await audit.write('/vault/Projects/Alpha/code.md', '```ts\nx\n```\n');
    const out = audit.render(NOW);
    expect(out).toContain('````diff\n@@ -0,0 +1,3 @@\n+```ts\n+x\n+```\n````');
  });

  it('diffHunks ignores a missing final newline and CRLF endings', () => {
    expect(diffHunks('a\nb', 'a\nb\n')).toEqual([]);
    expect(diffHunks('a\r\nb\r\n', 'a\r\nc\r\n')).toEqual(['@@ -1,2 +1,2 @@', ' a', '-b', '+c']);
  });
});
