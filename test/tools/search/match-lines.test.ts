import { describe, expect, it } from 'vitest';
import { type HeldText, type ThreadPattern, type ThreadRequest, answerRequest } from '../../../src/tools/search/match-lines.js';

/** What a search worker thread does with one message, run here on the main thread. */
function request(over: Partial<ThreadRequest>): ThreadRequest {
  return { id: 7, patterns: [pattern('x')], keep: 100, order: Int32Array.from([]), put: [], drop: [], ...over };
}

function pattern(source: string, flags = '', scan = true): ThreadPattern {
  return { source, flags, scan };
}

describe('answerRequest (the search worker thread program)', () => {
  it('reports matching lines with their numbers, in order, a carriage return not part of the line', () => {
    const store = new Map<number, HeldText>();
    const reply = answerRequest(store, request({
      patterns: [pattern('beta'), pattern('^alpha$')],
      order: Int32Array.from([1]),
      put: [{ h: 1, id: 'a.md', text: 'alpha\r\nbeta\r\ngamma\r\n', retain: false }],
    }));
    expect(reply).toEqual({ id: 7, count: 2, matches: [
      { i: 0, file: 'a.md', line: 1, text: 'alpha' },
      { i: 0, file: 'a.md', line: 2, text: 'beta' },
    ] });
    // Not retained: nothing stays behind.
    expect(store.size).toBe(0);
  });

  it('keeps retained texts for later requests until they are dropped', () => {
    const store = new Map<number, HeldText>();
    answerRequest(store, request({ order: Int32Array.from([3]), put: [{ h: 3, id: 'kept.md', text: 'x marks', retain: true }] }));
    const warm = answerRequest(store, request({ order: Int32Array.from([3]) }));
    expect(warm).toEqual({ id: 7, count: 1, matches: [{ i: 0, file: 'kept.md', line: 1, text: 'x marks' }] });
    const dropped = answerRequest(store, request({ drop: [3], order: Int32Array.from([3]) }));
    expect(dropped).toEqual({ id: 7, error: 'file 3 is not in the search cache' });
  });

  it('counts every matching line but keeps only `keep`, and cuts long lines at 500 characters', () => {
    const long = 'x'.repeat(600);
    const reply = answerRequest(new Map(), request({
      keep: 1,
      order: Int32Array.from([1, 2]),
      put: [
        { h: 1, id: 'a.md', text: `${long}\nx\n`, retain: false },
        { h: 2, id: 'b.md', text: 'x\n', retain: false },
      ],
    }));
    expect(reply.count).toBe(3);
    expect(reply.matches).toEqual([{ i: 0, file: 'a.md', line: 1, text: `${'x'.repeat(500)}…` }]);
  });

  it('matches a lookaround pattern line by line (no whole-text scan), so it never sees the next line', () => {
    const reply = answerRequest(new Map(), request({
      patterns: [pattern('a(?=\\nb)', '', false), pattern('a(?!\\S)', '', false)],
      order: Int32Array.from([1]),
      put: [{ h: 1, id: 'l.md', text: 'a\nb\n', retain: false }],
    }));
    expect(reply.matches).toEqual([{ i: 0, file: 'l.md', line: 1, text: 'a' }]);
  });

  it('answers an invalid pattern with an error instead of throwing', () => {
    const reply = answerRequest(new Map(), request({ patterns: [pattern('(')] }));
    expect(reply.id).toBe(7);
    expect(reply.error).toMatch(/Invalid regular expression/);
  });
});
