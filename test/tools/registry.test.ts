import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { createToolRegistry, summarizeArgs, TOOLS } from '../../src/tools/registry.js';
import type { ToolBinding } from '../../src/tools/binding/types.js';
import { harness } from '../helpers/tool-harness.js';

const DESIGN_TOOLS = [
  'read_meetingnote',
  'read_transcript',
  'read_context',
  'read_usernotes',
  'read_glossary',
  'add_dictation_word',
  'add_attendee',
  'remove_attendee',
  'override_speaker',
  'delete_identity',
  'write_summary',
  'write_context',
  'list_projects',
  'list_projectfiles',
  'read_projectfile',
  'write_projectfile',
  'list_past_project_meetings',
  'read_past_project_meeting_summary',
  'search',
];

describe('tool registry', () => {
  it('offers exactly the nineteen tools of the design, each with a description and an object schema', () => {
    const { registry } = harness();
    expect(registry.schemas.map((s) => s.name)).toEqual(DESIGN_TOOLS);
    for (const schema of registry.schemas) {
      // Short on purpose (issue 12: sent with every request), but never empty.
      expect(schema.description.length).toBeGreaterThan(10);
      expect(schema.parameters).toMatchObject({ type: 'object' });
    }
  });

  it('declares the design arguments of each tool', () => {
    const props = (name: string) =>
      Object.keys((TOOLS.find((t) => t.name === name)!.parameters as { properties: object }).properties).sort();
    expect(props('write_projectfile')).toEqual(['content', 'from', 'insert', 'path', 'project', 'replace_file', 'to']);
    expect(props('write_context')).toEqual(['content', 'from', 'line', 'mode', 'to']);
    expect(props('list_past_project_meetings')).toEqual(['page', 'page_size', 'projects']);
    expect(props('search')).toEqual(['keywords', 'projects']);
    expect(props('override_speaker')).toEqual(['name', 'speaker']);
    const search = TOOLS.find((t) => t.name === 'search')!.parameters as { required: string[]; properties: Record<string, unknown> };
    expect(search.required).toEqual(['keywords']);
    expect(search.properties.keywords).toMatchObject({ type: 'array', items: { type: 'string' } });
  });

  it('states plainly that write_summary writes the current summary and past summaries are read-only', () => {
    const { registry } = harness();
    const describe = (name: string) => registry.schemas.find((s) => s.name === name)!.description;
    expect(describe('write_summary')).toMatch(/This meeting's summary/);
    expect(describe('write_summary')).toMatch(/read-only/);
    expect(describe('list_past_project_meetings')).toMatch(/read-only/);
    expect(describe('read_past_project_meeting_summary')).toMatch(/read-only/);
  });

  it('answers an unknown tool name with an Error result listing the tools', async () => {
    const h = harness();
    const r = await h.call('delete_everything', {});
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: there is no tool named "delete_everything"/);
    expect(r.content).toContain('read_transcript');
  });

  it('answers invalid JSON arguments with an Error naming the expected call', async () => {
    const h = harness();
    const r = await h.call('read_projectfile', '{"project": "Alpha", "path": ');
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: the arguments are not valid JSON/);
    expect(r.content).toContain('read_projectfile({project: string, path: string, from?: integer, to?: integer})');
  });

  it('answers arguments that are not an object with an Error', async () => {
    const h = harness();
    const r = await h.call('read_transcript', '[1, 2]');
    expect(r).toMatchObject({ isError: true });
    expect(r.content).toMatch(/^Error: the arguments must be a JSON object, got an array/);
  });

  it('names every missing required argument', async () => {
    const h = harness();
    const r = await h.call('write_projectfile', { project: 'Alpha' });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('missing required argument "path"');
    expect(r.content).toContain('missing required argument "content"');
  });

  it('coerces numbers sent as strings ("12") for line numbers', async () => {
    const h = harness();
    const r = await h.call('read_transcript', { from: '6', to: ' 7 ' });
    expect(r.isError).toBe(false);
    expect(r.content.split('\n')[0]).toBe('Meetings/Transcripts/2026-11-30 Weekly Sync.md (lines 6-7 of 9)');
  });

  it('refuses a line number that is not a whole number, telling how to call', async () => {
    const h = harness();
    const r = await h.call('read_transcript', { from: 'three' });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: argument "from": expected a whole number, got the string "three"/);
  });

  it('accepts a single string where an array is expected (keywords, projects)', async () => {
    const h = harness();
    const r = await h.call('search', { keywords: 'roadmap', projects: 'Beta' });
    expect(r.isError).toBe(false);
    expect(r.content).toContain('Projects/Beta/roadmap.md:1:Beta roadmap');
  });

  it('accepts a JSON array encoded as a string and double-encoded arguments', async () => {
    const h = harness();
    const r1 = await h.call('search', { keywords: '["roadmap", "Ship v2"]' });
    expect(r1.content).toContain('Projects/Beta/roadmap.md:1:Beta roadmap');
    expect(r1.content).toContain('Projects/Alpha/docs/decisions.md:2:Ship v2 in December');
    const r2 = await h.call('read_glossary', JSON.stringify(JSON.stringify({ from: 2 })));
    expect(r2.content.split('\n')[0]).toBe('Meetings/Glossary.md (lines 2-2 of 2)');
  });

  it('treats null optional arguments as absent and mentions ignored extra fields', async () => {
    const h = harness();
    const r = await h.call('read_glossary', { from: null, to: null, verbose: true });
    expect(r.isError).toBe(false);
    expect(r.content.split('\n')[0]).toBe('Meetings/Glossary.md (lines 1-2 of 2)');
    expect(r.content).toContain('ignored unknown argument "verbose"');
  });

  it('understands arguments handed over already parsed', async () => {
    const h = harness();
    const r = await h.registry.call({ id: '1', name: 'read_glossary', arguments: { from: 2 } as unknown as string });
    expect(r.content.split('\n')[0]).toBe('Meetings/Glossary.md (lines 2-2 of 2)');
  });

  it('accepts an empty argument string for tools without required arguments', async () => {
    const h = harness();
    const r = await h.call('list_projects', '');
    expect(r.isError).toBe(false);
    expect(r.content).toContain('Alpha');
  });

  it('accepts enum values case-insensitively and refuses others', async () => {
    const h = harness();
    expect((await h.call('write_context', { content: 'x', mode: 'Overwrite' })).isError).toBe(false);
    const r = await h.call('write_context', { content: 'x', mode: 'append' });
    expect(r.content).toMatch(/^Error: argument "mode": expected one of "overwrite", "replace", "insert"/);
  });

  it('turns a handler exception (EACCES) into an Error result instead of throwing', async () => {
    const h = harness();
    const failing = Object.create(h.vault.fs) as typeof h.vault.fs;
    failing.readFile = async () => {
      throw Object.assign(new Error('permission denied, open'), { code: 'EACCES' });
    };
    // The confined read opens a handle (vault/files/real-place.ts).
    failing.open = async () => {
      throw Object.assign(new Error('permission denied, open'), { code: 'EACCES' });
    };
    const ctx: ToolBinding = { ...h.ctx, vault: Object.assign(Object.create(Object.getPrototypeOf(h.vault)), h.vault, { fs: failing }) };
    const registry = createToolRegistry(ctx);
    const r = await registry.call({ id: '1', name: 'read_transcript', arguments: '{}' });
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/^Error: read_transcript failed \(EACCES\): permission denied/);
  });

  it('logs each call at debug (the turn line is the info one) with a short argument summary, never the content', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const h = harness();
    const registry = createToolRegistry({ ...h.ctx, log: createLogger({ destination, level: 'debug' }) });
    await registry.call({ id: '1', name: 'write_projectfile', arguments: JSON.stringify({ project: 'Alpha', path: 'new.md', content: 'SECRET TEXT' }) });
    await registry.call({ id: '2', name: 'nope', arguments: '{}' });
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({ level: 'debug', tool: 'write_projectfile', ok: true, args: { project: 'Alpha', path: 'new.md', content: '<11 chars>' } });
    expect(typeof records[0]!.ms).toBe('number');
    expect(records[1]).toMatchObject({ tool: 'nope', ok: false });
    expect(lines.join('')).not.toContain('SECRET TEXT');
  });

  it('summarizes arguments for logs without their text', () => {
    expect(summarizeArgs('{"keywords": ["a", "b"], "content": "hello"}')).toEqual({ keywords: ['a', 'b'], content: '<5 chars>' });
    expect(summarizeArgs('{oops')).toBe('<invalid JSON, 5 chars>');
  });

  it('cuts an over-long result at a line boundary with a note saying how to read the rest', async () => {
    const long = Array.from({ length: 500 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`).join('\n');
    const h = harness({ files: { 'Projects/Alpha/long.md': long }, ctx: { maxResultChars: 4000 } });
    const r = await h.call('read_projectfile', { project: 'Alpha', path: 'long.md' });
    expect(r.content.length).toBeLessThanOrEqual(4000);
    const lines = r.content.split('\n');
    const last = lines[lines.length - 1]!;
    const shown = lines.length - 2;
    expect(lines[0]).toBe(`Projects/Alpha/long.md (lines 1-${shown} of 500)`);
    expect(last).toBe(`[cut: the result is limited to about 4000 characters; read the rest with from=${shown + 1} to=500]`);
    expect(lines[shown]).toBe(`${String(shown).padStart(6)}\tline ${shown} ${'x'.repeat(40)}`);
  });
});
