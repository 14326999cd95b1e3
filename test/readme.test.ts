import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';
import { guideSection as section } from './helpers/guide.js';

/** README.md and the guide behind it as a new user meets them (#22 point 8, #35). */
const lines = readFileSync('README.md', 'utf8').split('\n');

describe('README.md', () => {
  it('opens with a quick start that fits on the first screen: install, start, Ollama, the first summary, where to read on', () => {
    expect(lines.indexOf('## Quick start')).toBeLessThan(12);
    const quick = section('## Quick start');
    expect(quick.length).toBeLessThanOrEqual(32);
    const text = quick.join('\n');
    for (const step of ['npm ci', 'npm link', 'ollama', 'npm start', 'Summaries/', 'Read on:']) expect(text).toContain(step);
  });

  it("the first start's captured log is what the daemon prints now: runs wait for an endpoint that is down, the inbox sample is imported", () => {
    const detail = section('## First start in detail').join('\n');
    const capture = /```text\nnpm start: [\s\S]*?```/.exec(detail)?.[0] ?? '';
    // Each phrase is the daemon's own wording (src), so a change of either side shows here.
    const src = ['src/agent/model/endpoint-check.ts', 'src/agent/model/endpoint-wait.ts'].map((f) => readFileSync(f, 'utf8')).join('\n');
    for (const phrase of ['runs wait until it answers', 'runs wait and start once it answers', 'still waiting for the model endpoint']) {
      expect(src, phrase).toContain(phrase);
      expect(capture, phrase).toContain(phrase);
    }
    expect(capture).toContain('INFO: imported Meetings/Inbox/Beta/2026-12-01 1600 Northwind SSO call.vtt');
    // The retries an unreachable endpoint no longer spends (docs/design.md §2).
    expect(capture).not.toMatch(/attempt \d of \d failed \(network\)|meetings will fail until it is/);
  });

  it('the command table renders: one unbroken table, a row for every command of the command line', () => {
    const table = section('## Command line');
    const first = table.findIndex((line) => line.startsWith('| command |'));
    const rows: string[] = [];
    for (const line of table.slice(first + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line);
    }
    const documented = rows.map((row) => /^\| `([a-z-]+(?: [a-z]+)?)/.exec(row)?.[1]?.replace(/ (--|<).*$/, ''));
    const program = buildProgram(() => {});
    const commands = program.commands.flatMap((c) => (c.commands.length > 0 ? c.commands.map((sub) => `${c.name()} ${sub.name()}`) : [c.name()]));
    for (const command of commands) expect(documented.some((d) => d === command || d?.startsWith(`${command} `)), command).toBe(true);
    // Nothing after the table's last row looks like a row that fell out of it.
    expect(table.slice(first + 2 + rows.length).some((line) => /^\| `/.test(line.trim()) || /^`(status|session|doctor) /.test(line))).toBe(false);
  });

  it('the MCP client snippets are valid JSON that starts node itself on the package bin, so no PATH is needed (§10)', () => {
    const text = section('## Ask your meetings from any MCP client').join('\n');
    const blocks = [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const bin = (JSON.parse(readFileSync('package.json', 'utf8')) as { bin: Record<string, string> }).bin['meeting-assistant']!;
    for (const block of blocks) {
      const server = (JSON.parse(block) as { mcpServers: { meetings: { command: string; args: string[] } } }).mcpServers.meetings;
      // Clients start servers without the shell's PATH: `#!/usr/bin/env node` may find no node, or an old one.
      expect(server.command).toMatch(/^\/.*\/node$/);
      expect(server.args[0]).toMatch(new RegExp(`^/.*/meeting-assistant/${bin}$`));
      expect(server.args.slice(1, 3)).toEqual(['mcp', '--config']);
      expect(server.args[3]).toMatch(/^\/.*\.json$/);
    }
  });
});
