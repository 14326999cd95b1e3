import { describe, expect, it } from 'vitest';
import { BoundedLines, idOf, tooLongAnswer } from '../../src/mcp/bounded-lines.js';

/** stdin of `mcp` in whole, bounded lines (issue 33 point 7, docs/design.md §10). */
async function through(max: number, chunks: string[]): Promise<{ out: string; tooLong: (string | number | null)[] }> {
  const tooLong: (string | number | null)[] = [];
  const lines = new BoundedLines(max, (id) => tooLong.push(id));
  const parts: Buffer[] = [];
  lines.on('data', (d: Buffer) => parts.push(d));
  const ended = new Promise((resolve) => lines.on('end', resolve));
  for (const chunk of chunks) lines.write(Buffer.from(chunk));
  lines.end();
  await ended;
  return { out: Buffer.concat(parts).toString(), tooLong };
}

describe('BoundedLines', () => {
  it('hands lines on whole, however the chunks cut them', async () => {
    const { out, tooLong } = await through(100, ['{"id":1', '}\n{"id"', ':2}\n', '{"id":3}']);
    expect(out).toBe('{"id":1}\n{"id":2}\n{"id":3}');
    expect(tooLong).toEqual([]);
  });

  it('drops a line past the bound, across chunks, tells its id, and passes the next line', async () => {
    const long = `{"jsonrpc":"2.0","id":7,"method":"x","params":{"q":"${'a'.repeat(300)}"}}`;
    const { out, tooLong } = await through(100, [long.slice(0, 50), long.slice(50, 200), `${long.slice(200)}\n{"id":8}\n`]);
    expect(out).toBe('{"id":8}\n');
    expect(tooLong).toEqual([7]);
  });

  it('finds an id written last, a string id, or none', async () => {
    expect(idOf(Buffer.from('{"method":"x","params":{},"id":"req-9"}'), 'last')).toBe('req-9');
    expect(idOf(Buffer.from('{"method":"x"'), 'first')).toBeNull();
    const { tooLong } = await through(20, [`{"method":"x","params":{"q":"${'b'.repeat(2000)}"},"id":42}\n`]);
    expect(tooLong).toEqual([42]);
  });

  it('answers the request\'s own id, not an "id" among its arguments (the TypeScript SDK writes the id last)', async () => {
    const { tooLong } = await through(100, [`{"method":"tools/call","params":{"name":"t","arguments":{"id":3,"text":"${'c'.repeat(2000)}"}},"jsonrpc":"2.0","id":12}\n`]);
    expect(tooLong).toEqual([12]);
    const nested = await through(100, [`{"jsonrpc":"2.0","method":"x","params":{"id":4,"q":"${'d'.repeat(2000)}"}}\n`]);
    expect(nested.tooLong).toEqual([null]);
  });

  it('answers with a JSON-RPC Invalid Request error naming the bound', () => {
    expect(JSON.parse(tooLongAnswer(7, 10))).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: expect.stringContaining('10 bytes') as string } });
  });
});
