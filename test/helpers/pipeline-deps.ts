import { createModelClient } from '../../src/agent/model/client.js';
import type { AppConfig } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import type { PipelineDeps } from '../../src/meeting/pipeline.js';
import type { Vault } from '../../src/vault/files/vault.js';

/** Pipeline dependencies for tests: the real model client on `config`, a silent log, a fixed clock. */
export function pipelineDeps(vault: Vault, config: AppConfig, now: string, extra: Partial<PipelineDeps> = {}): PipelineDeps {
  return {
    vault,
    config,
    log: silentLogger,
    model: createModelClient(config),
    retryUrl: (rel) => `http://127.0.0.1:4777/retry?note=${encodeURIComponent(rel)}&token=tok`,
    clock: () => new Date(now),
    ...extra,
  };
}
