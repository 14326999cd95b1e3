import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { fetchGet, type HttpGet, nodeGet } from '../../src/agent/model/http-get.js';

/** The daemon's HTTP client and the fetch it replaces (agent/model/http-get.ts): a case runs through both. */
export const BOTH_CLIENTS: [string, HttpGet][] = [
  ['node', nodeGet],
  ['fetch', fetchGet(fetch)],
];

/** A server on 127.0.0.1 for one test file: listening before its tests, closed after them. */
export function loopbackServer(handler: http.RequestListener): { readonly base: string } {
  let server: http.Server;
  const state = { base: '' };
  beforeAll(async () => {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}
