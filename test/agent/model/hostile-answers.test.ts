import { modelFailure } from '../../helpers/model-errors.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../src/agent/model/client.js';
import { type ModelClient, type ModelRequest } from '../../../src/agent/types.js';
import { MAX_ANSWER_BYTES, readCappedText } from '../../../src/http-io.js';
import { testConfig } from '../../helpers/memfs.js';
import { type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

/**
 * Answers that are hostile by their shape on the wire (issue #24 points 2 and 8): headers then
 * a stall, a trickle of one byte at a time, a body far over 32 MB. Endpoint.TimeoutSeconds
 * bounds the whole answer, body included; an answer over 32 MB is refused, not retried, and
 * never held whole (docs/design.md §3 step 4).
 */

type Api = 'chat-completions' | 'responses';

const request = (): ModelRequest => ({
  instructions: 'You are the meeting assistant.',
  messages: [{ role: 'user', content: 'Summarize the meeting.' }],
  tools: [],
  maxOutputTokens: 100,
});


let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

describe.each<Api>(['chat-completions', 'responses'])('%s: the timeout bounds the whole answer', (api) => {
  const client = (timeoutSeconds: number): ModelClient =>
    createModelClient(
      testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: timeoutSeconds, ApiKeyEnvironmentVariable: '' } }),
    );

  it('headers, half the body, then nothing: a transient timeout after Endpoint.TimeoutSeconds', async () => {
    server.script({ stall: {} });
    const err = await modelFailure(client(0.5).complete(request()));
    expect(err).toMatchObject({ kind: 'timeout', transient: true });
    expect(err.message).toContain('Endpoint.TimeoutSeconds');
  });

  it('one byte every 50 ms (each byte in time, the whole answer not): a timeout, not a wait forever', async () => {
    server.script({ trickle: { intervalMs: 50 } });
    const err = await modelFailure(client(0.6).complete(request()));
    expect(err).toMatchObject({ kind: 'timeout', transient: true });
  });

  it('a trickle that completes within the timeout is a normal answer (the scripted mode works)', async () => {
    server.script({ trickle: { reply: { content: 'slow but whole' }, intervalMs: 1, bytes: 64 } });
    expect((await client(10).complete(request())).content).toBe('slow but whole');
  });

  it.each([true, false])('an answer of 40 MB (content-length sent: %s) is refused, not retried', async (announce) => {
    server.script({ oversized: { bytes: 40 * 1024 * 1024, announce } });
    const err = await modelFailure(client(30).complete(request()));
    expect(err).toMatchObject({ kind: 'invalid-response', transient: false });
    expect(err.message).toMatch(/larger than 32 MB/);
  });

  it('an answer just under 32 MB is read', async () => {
    server.script({ oversized: { bytes: MAX_ANSWER_BYTES - 1024, announce: false } });
    // The stand-in server waits for 'drain' hundreds of times here: a listener left per wait
    // printed MaxListenersExceededWarning in `npm test` (#22 point 11).
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      // The padding answer carries both shapes (an empty `output` for the responses client).
      await expect(client(30).complete(request())).resolves.toMatchObject({ toolCalls: [] });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});

describe('readCappedText: never holds more than the cap', () => {
  it('stops pulling from an endless body just past the cap (counted pieces, not memory)', async () => {
    const piece = new Uint8Array(64 * 1024).fill(120);
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += piece.byteLength;
        controller.enqueue(piece);
      },
    });
    const cap = 1024 * 1024;
    await expect(readCappedText(new Response(endless), cap, () => new Error('too large'))).rejects.toThrow('too large');
    // The stream may have queued a piece or two ahead of the reader (its high-water mark).
    expect(pulled).toBeLessThanOrEqual(cap + 3 * piece.byteLength);
  });

  it('refuses an announced content-length over the cap without reading a byte', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10));
      },
    });
    const response = new Response(body, { headers: { 'content-length': String(2048) } });
    await expect(readCappedText(response, 1024, () => new Error('too large'))).rejects.toThrow('too large');
    expect(pulled).toBeLessThanOrEqual(1);
  });

  it('decodes UTF-8 split across pieces', async () => {
    const bytes = new TextEncoder().encode('Grüße, 会議');
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const b of bytes) controller.enqueue(new Uint8Array([b]));
        controller.close();
      },
    });
    expect(await readCappedText(new Response(body), 1024, () => new Error('x'))).toBe('Grüße, 会議');
  });
});
