import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rolledFiles, rolledName } from '../../src/service/log-files.js';

describe('pino-roll file names', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ma-logs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names pino-roll files the way pino-roll does', async () => {
    expect(rolledName('/x/meeting-assistant.log')).toEqual({ dir: '/x', stem: 'meeting-assistant', ext: '.log' });
    expect(rolledName('/x/ma')).toEqual({ dir: '/x', stem: 'ma', ext: '.log' });
    for (const n of [1, 2, 10]) await writeFile(path.join(dir, `ma.${n}.log`), '');
    await writeFile(path.join(dir, 'other.1.log'), '');
    expect((await rolledFiles(path.join(dir, 'ma.log'))).map((f) => path.basename(f))).toEqual(['ma.1.log', 'ma.2.log', 'ma.10.log']);
  });
});
