import { describe, expect, it } from 'vitest';
import { CallGuards, MAX_ARGUMENT_BYTES, MAX_ECHOED_ARGUMENT_BYTES, REPEAT_NOTE } from '../../src/agent/call-guards.js';
import type { ToolCall, ToolExecutor } from '../../src/agent/types.js';

function counting(): ToolExecutor & { runs: number } {
  const tools = {
    runs: 0,
    schemas: [],
    call: () => {
      tools.runs++;
      return Promise.resolve({ content: `run ${tools.runs}`, isError: false });
    },
  };
  return tools;
}
const call = (args: string, name = 'write_projectfile'): ToolCall => ({ id: 'c', name, arguments: args });

describe('CallGuards (docs/design.md §3 step 11)', () => {
  it('a smaller Agent.MaxFileBytes bounds the arguments: a call over it is not run', async () => {
    const tools = counting();
    const guards = new CallGuards(100);
    const result = await guards.run(call(JSON.stringify({ content: 'x'.repeat(200) })), tools);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/over the limit of 100; it was not run/);
    expect(tools.runs).toBe(0);
  });

  it('a larger Agent.MaxFileBytes does not raise the bound past 1 MB', async () => {
    const tools = counting();
    const guards = new CallGuards(64 * 1024 * 1024);
    const result = await guards.run(call(JSON.stringify({ content: 'x'.repeat(MAX_ARGUMENT_BYTES) })), tools);
    expect(result.isError).toBe(true);
    expect(tools.runs).toBe(0);
  });

  it('echoes arguments over the echo bound as a short valid object, others unchanged', () => {
    const guards = new CallGuards();
    const small = call('{"content": "short"}');
    const big = call(JSON.stringify({ content: 'y'.repeat(MAX_ECHOED_ARGUMENT_BYTES) }));
    const [a, b] = guards.echo([small, big]);
    expect(a).toBe(small);
    expect(JSON.parse(b!.arguments)).toEqual({ omitted: expect.stringMatching(/bytes of arguments/) as unknown });
  });

  it('the same arguments in another key order or spacing count as the same call; an error result is repeated as an error', async () => {
    let n = 0;
    const failing: ToolExecutor = { schemas: [], call: () => Promise.resolve({ content: `Error: nope ${++n}`, isError: true }) };
    const guards = new CallGuards();
    await guards.run(call('{"a": 1, "b": 2}'), failing);
    await guards.run(call('{"b":2,"a":1}'), failing);
    const third = await guards.run(call('{ "a" : 1 , "b" : 2 }'), failing);
    expect(third).toEqual({ content: `Error: nope 2\n\n${REPEAT_NOTE}`, isError: true });
    expect(n).toBe(2);
  });
});
