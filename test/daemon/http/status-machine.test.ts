import { describe, expect, it } from 'vitest';
import { renderMain } from '../../../src/daemon/http/status-page.js';
import { buildStatusView } from '../../../src/daemon/http/status-view.js';
import { RunBoard } from '../../../src/daemon/runs/run-board.js';
import { RunHistory } from '../../../src/daemon/runs/run-history.js';
import type { ClaimStatus } from '../../../src/instance/vault-claim.js';
import { silentLogger } from '../../../src/log.js';
import { memoryVault } from '../../helpers/memfs.js';

/** The status page says which machine runs a vault other machines share (docs/design.md §2). */

function pageWith(machine: ClaimStatus | undefined): string {
  const vault = memoryVault();
  const view = buildStatusView({
    version: '0.1.0',
    startedAt: new Date('2026-12-02T09:00:00Z'),
    vaultRoot: vault.root,
    board: new RunBoard(new RunHistory(vault, silentLogger)),
    pending: () => [],
    stopping: () => false,
    endpoint: { url: 'http://x', model: 'm', api: 'chat-completions' },
    endpointWindow: () => 1000,
    clock: () => new Date('2026-12-02T10:00:00Z'),
    machine: () => machine,
  });
  return renderMain(view, 'CSRF');
}

describe('the status page on a shared vault', () => {
  it('names this machine, its role and the other machines', () => {
    const html = pageWith({
      machine: 'desktop',
      role: 'active',
      activeMachine: 'desktop',
      others: [
        { machine: 'laptop', role: 'standby', beatAt: '2026-12-02T09:59:58Z', fresh: true },
        { machine: 'old-box', role: 'active', beatAt: '2026-11-02T09:59:58Z', fresh: false },
      ],
    });
    expect(html).toContain('<dt>Machine</dt><dd>desktop, active; other machines on this vault: laptop (standby), old-box (active, silent)</dd>');
  });

  it('says nothing of machines on a vault no other machine shares', () => {
    expect(pageWith({ machine: 'desktop', role: 'active', activeMachine: 'desktop', others: [] })).not.toContain('Machine');
    expect(pageWith(undefined)).not.toContain('<dt>Machine</dt>');
  });
});
