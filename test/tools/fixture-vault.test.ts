import { afterAll, expect, it } from 'vitest';
import { describeVault, FIXTURE_VAULTS, readVaultFiles } from '../helpers/fixture-vaults.js';
import { closeHarnessCaches, harness } from '../helpers/tool-harness.js';

afterAll(closeHarnessCaches);

/**
 * The project tools on whole real-world vaults, each copied whole (every file, not only
 * Markdown) as one project: the project's own fixture vault always, the shared one when present.
 */

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const vault of FIXTURE_VAULTS) {
  describeVault(vault, `project tools on ${vault.title}`, () => {
    const fixture = readVaultFiles(vault);
    const asProject = Object.fromEntries(Object.entries(fixture).map(([rel, text]) => [`Projects/Fixture/${rel}`, text]));
    const project = () => harness({ files: asProject, meeting: { projects: ['Fixture'] } });
    const note = vault.meeting.note;

    it('lists every file of the project, sorted', async () => {
      const lines = (await project().call('list_projectfiles', { project: 'Fixture' })).content.split('\n');
      expect(lines[0]).toBe(`Files of project Fixture (Projects/Fixture/): ${Object.keys(fixture).length}`);
      expect(lines.slice(1)).toEqual(Object.keys(fixture).sort());
    });

    it('reads a meeting note with its frontmatter, line numbers over the whole file', async () => {
      const text = fixture[note]!;
      const lines = text.split(/\r?\n/);
      const at = lines.findIndex((l) => l.includes(vault.meeting.people[0]!)) + 1;
      const r = await project().call('read_projectfile', { project: 'Fixture', path: note, from: at, to: at });
      expect(r.content).toBe(
        `Projects/Fixture/${note} (lines ${at}-${at} of ${lines.length - (text.endsWith('\n') ? 1 : 0)})\n${String(at).padStart(6)}\t${lines[at - 1]}`,
      );
    });

    it('finds every line that links a person, as path:line:text', async () => {
      const expected: string[] = [];
      for (const [rel, text] of Object.entries(fixture).sort(([a], [b]) => (a < b ? -1 : 1))) {
        text.split(/\r?\n/).forEach((line, i) => {
          if (line.includes(vault.person)) expected.push(`Projects/Fixture/${rel}:${i + 1}:${line}`);
        });
      }
      expect(expected.length).toBeGreaterThan(2);
      const lines = (await project().call('search', { keywords: escapeRegex(vault.person) })).content.split('\n');
      expect(lines.slice(1)).toEqual(expected);
    });

    it('appends to a meeting note, audited as added lines only', async () => {
      const h = project();
      await h.call('write_projectfile', { project: 'Fixture', path: note, content: '- follow-up from the weekly sync' });
      const section = h.ctx.audit.render(new Date(0));
      const changed = section.split('\n').filter((l) => l.startsWith('+') || l.startsWith('-'));
      expect(changed).toEqual(['+- follow-up from the weekly sync']);
    });
  });
}
