import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../../src/agent/model/client.js';
import { withRetries } from '../../../src/agent/model/retry.js';
import { isToolsRefusal, ToolsRefusedError } from '../../../src/agent/model/tools-refused.js';
import { silentLogger } from '../../../src/log.js';
import { modelFailure } from '../../helpers/model-errors.js';
import { testConfig } from '../../helpers/memfs.js';
import { REFUSALS, type RefusingKind, refusingTools } from '../../helpers/refusing-server.js';
import { errorBody, type ScriptedServer, startScriptedServer } from '../../helpers/scripted-server.js';

const TOOL = { name: 'read_transcript', description: 'Read lines.', parameters: { type: 'object', properties: {} } };

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

const client = (api: 'chat-completions' | 'responses' = 'chat-completions') =>
  withRetries(
    createModelClient(testConfig({ Endpoint: { BaseUrl: server.baseUrl, Model: 'test-model', Api: api, TimeoutSeconds: 5, ApiKeyEnvironmentVariable: '' } })),
    { attempts: 2, delayMs: 0, log: silentLogger, sleep: async () => {} },
  );
const ask = (api?: 'chat-completions' | 'responses') =>
  client(api).complete({ instructions: 'x', messages: [{ role: 'user', content: 'hi' }], tools: [TOOL], maxOutputTokens: 64 });

describe('a server that refuses tools (docs/design.md §3 step 11)', () => {
  it.each(Object.keys(REFUSALS) as RefusingKind[])('%s: recognised from its first answer, never retried', async (kind) => {
    server.setFallback(refusingTools(kind, { reply: { content: 'unused' } }));
    const err = await modelFailure(ask());
    expect(err).toBeInstanceOf(ToolsRefusedError);
    expect((err as ToolsRefusedError).serverWords).toBe(REFUSALS[kind].words);
    expect(err.status).toBe(REFUSALS[kind].status);
    expect(err.transient).toBe(false);
    // One request: llama.cpp's 500 is not a server fault to try three times.
    expect(server.modelRequests()).toHaveLength(1);
  });

  it('the Responses API client recognises it too', async () => {
    server.setFallback(refusingTools('ollama', { reply: { content: 'unused' } }));
    expect(await modelFailure(ask('responses'))).toBeInstanceOf(ToolsRefusedError);
    expect(server.modelRequests()).toHaveLength(1);
  });

  it('other 500s and 400s are what they were: a 500 retried, a 400 not a refusal', async () => {
    server.script({ status: 500, body: errorBody('out of memory') }, { status: 500, body: errorBody('out of memory') }, { reply: { content: 'fine' } });
    await expect(ask()).resolves.toMatchObject({ content: 'fine' });
    expect(server.modelRequests()).toHaveLength(3);
    server.script({ status: 400, body: errorBody("'messages' must not be empty") });
    const err = await modelFailure(ask());
    expect(err).not.toBeInstanceOf(ToolsRefusedError);
  });

  it('isToolsRefusal: the words with a refusal status only, and no false alarm on nearby wording', () => {
    expect(isToolsRefusal(400, 'glm4 does not support tools')).toBe(true);
    expect(isToolsRefusal(400, 'this model does not support function calling')).toBe(true);
    expect(isToolsRefusal(400, 'Tool calling is not supported for this model')).toBe(true);
    expect(isToolsRefusal(429, 'does not support tools')).toBe(false);
    expect(isToolsRefusal(400, 'the prompt is too long for tools and messages')).toBe(false);
    expect(isToolsRefusal(500, 'CUDA error: out of memory')).toBe(false);
    // A window overflow is a context error (compaction's), never a refusal of tools.
    expect(isToolsRefusal(400, "This model's maximum context length is 4096 tokens. However, you requested 5100 tokens (4100 in the messages, 1000 in the completion)")).toBe(false);
    expect(isToolsRefusal(400, 'the request exceeds the available context size, try increasing it')).toBe(false);
    expect(isToolsRefusal(400, 'Trying to keep the first 5210 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens')).toBe(false);
    expect(isToolsRefusal(undefined, 'does not support tools')).toBe(false);
  });
});
