import pino from 'pino';
import { flushLogger, type Logger } from '../../src/log.js';

/** End a logger's transport and wait until the worker has written everything to disk. */
export async function endLogger(log: Logger): Promise<void> {
  await flushLogger(log);
  const stream = (log as unknown as Record<symbol, NodeJS.EventEmitter & { end(): void; closed?: boolean }>)[pino.symbols.streamSym]!;
  if (stream.closed) return;
  await new Promise<void>((resolve) => {
    stream.once('close', () => resolve());
    stream.end();
  });
}
