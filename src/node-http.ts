import { createRequire } from 'node:module';
import type * as Http from 'node:http';

/**
 * node:http as a CommonJS require, never as an ES import (docs/design.md §8). From node 22 on,
 * node:http has getters for WebSocket, CloseEvent and MessageEvent that load fetch's undici
 * (some 10 MB) when read; an ES import, static or dynamic, builds the module's namespace and so
 * reads every one of them. A require reads none.
 */
export function nodeHttp(): typeof Http {
  return createRequire(import.meta.url)('node:http') as typeof Http;
}
