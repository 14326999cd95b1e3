import { describe, expect, it } from 'vitest';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RunHistory } from '../../../src/daemon/runs/run-history.js';
import { renderMain } from '../../../src/daemon/http/status-page.js';
import { buildStatusView } from '../../../src/daemon/http/status-view.js';
import { gateOnBoard } from '../../../src/daemon/runs/endpoint-gate.js';
import { silentLogger } from '../../../src/log.js';
import { memoryVault } from '../../helpers/memfs.js';

/** docs/design.md §2: the status page says since when the endpoint does not answer, and which runs wait for it. */

describe('status page: the endpoint down', () => {
  it('shows the endpoint not answering since when, and a run waiting for it as waiting', async () => {
    const board = new RunBoard(new RunHistory(memoryVault(), silentLogger));
    board.start('/vault/Meetings/A.md', { meeting: 'Meetings/A.md', kind: 'summarize', trigger: 'transcript', startedAt: '2026-12-02T09:00:00Z' });
    let release!: () => void;
    const since = new Date('2026-12-02T09:00:05Z');
    const gate = gateOnBoard({ downSince: since, waitUntilUp: () => new Promise<boolean>((r) => (release = () => r(true))) }, board, '/vault/Meetings/A.md');
    const waiting = gate.waitUntilUp();
    const view = () =>
      buildStatusView({
        version: '1',
        startedAt: new Date('2026-12-02T08:00:00Z'),
        vaultRoot: '/vault',
        board,
        pending: () => [],
        stopping: () => false,
        endpoint: { url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b', api: 'chat-completions' },
        endpointWindow: () => 8192,
        endpointDownSince: () => since.toISOString(),
        clock: () => new Date('2026-12-02T09:01:00Z'),
      });
    const html = renderMain(view(), 'csrf');
    expect(view().endpoint.health).toMatchObject({ state: 'down', since: '2026-12-02T09:00:05.000Z', waiting: { runs: 1 } });
    expect(html).toContain('● down</span> since <time datetime="2026-12-02T09:00:05.000Z">');
    expect(html).toContain('1 run waiting for it since');
    expect(html).toMatch(/<tr class="run"[^]*waiting for the model endpoint/);
    release();
    await waiting;
    expect(board.live()[0]!.waitingForEndpoint).toBeUndefined();
    expect(renderMain(view(), 'csrf')).not.toContain('waiting for the model endpoint');
  });
});
