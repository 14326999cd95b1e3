import { describe, expect, it } from 'vitest';
import { answerPrinter, ForgedLineGuard } from '../../src/ask/terminal-text.js';
import { TerminalFilter, terminalSafe } from '../../src/vault/format/terminal-text.js';

/** What `ask` prints (issue 43 point 6, docs/design.md §11): the filter and the guard on their own, piece by piece. */
describe('TerminalFilter', () => {
  it('drops CSI, OSC (BEL or ESC \\\\ ended), DCS, two-byte escapes, their 8-bit forms, C0/C1 controls but \\n and \\t, and bidi overrides', () => {
    const text = 'a\u001b[1;31mb\u001b]0;T\u0007c\u001b]8;;http://x\u001b\\d\u001bPq#0\u001b\\e\u001bcf\u009b2Jg\u009d0;T\u009ch\r\u0008\u007f\u0085i\u202ej\tk\nl';
    expect(terminalSafe(text)).toBe('abcdefghij\tk\nl');
  });

  it('holds a sequence split at any point across pieces', () => {
    const text = 'x\u001b]0;PWNED\u0007y\u001b[2Jz';
    for (let cut = 0; cut <= text.length; cut++) {
      const f = new TerminalFilter();
      expect(f.push(text.slice(0, cut)) + f.push(text.slice(cut)), `cut at ${cut}`).toBe('xyz');
    }
  });

  it('an OSC never ended swallows a bounded stretch, then text shows again', () => {
    const out = terminalSafe(`\u001b]0;${'t'.repeat(5000)}visible`);
    expect(out.length).toBeLessThan(1000);
    expect(out.endsWith('visible')).toBe(true);
  });
});

describe('ForgedLineGuard', () => {
  it('indents answer lines that start like the sources block, however the pieces fall; leaves the others', () => {
    const text = 'Answer.\nSources:\n- [[Meetings/X]] X, 2026-11-23\n- plain item\nSour dough\n';
    const expected = 'Answer.\n  Sources:\n  - [[Meetings/X]] X, 2026-11-23\n- plain item\nSour dough\n';
    for (let cut = 0; cut <= text.length; cut++) {
      const g = new ForgedLineGuard();
      expect(g.push(text.slice(0, cut)) + g.push(text.slice(cut)) + g.end(), `cut at ${cut}`).toBe(expected);
    }
  });

  it('answerPrinter writes what is decided and the rest at the end', () => {
    const out: string[] = [];
    const p = answerPrinter((t) => out.push(t));
    p.push('- [');
    expect(out).toEqual([]);
    p.end();
    expect(out).toEqual(['- [']);
  });
});
