import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import pino from 'pino';
import { createLoggerFromConfig, flushLogger } from '../log.js';
import { BoundedLines, MAX_MESSAGE_LINE_BYTES, tooLongAnswer } from '../mcp/bounded-lines.js';
import { createMeetingsServer } from '../mcp/server.js';
import { watchMeetingFolders } from '../mcp/watch.js';
import { RunCaches } from '../tools/binding/run-caches.js';
import { statIfExists } from '../vault/files/fs.js';
import { Vault } from '../vault/files/vault.js';
import { packageVersion } from '../version.js';
import { CliError, type CommandDeps, EXIT_OK, EXIT_USAGE, type GlobalOptions, loadCommandConfig, withDefaults } from './common.js';

/**
 * `mcp`: the meetings as an MCP server on stdin/stdout (docs/design.md §10), until the client
 * closes stdin or a signal stops it. stdout carries the protocol only: the log goes to stderr
 * (MCP clients keep it in their own log), whatever `Logging.File` says. Nothing is written to
 * the vault, not even the state folder: no daemon runtime, no HTTP token. The meeting folders
 * are watched (mcp/watch.ts), so that warm calls read nothing that did not change.
 */
export async function mcp(opts: GlobalOptions, given: Partial<CommandDeps> = {}): Promise<number> {
  const deps = withDefaults(given);
  const config = await loadCommandConfig(opts, deps);
  const vault = new Vault(deps.fs, config.layout);
  if (!(await statIfExists(deps.fs, vault.root))?.isDirectory()) {
    throw new CliError(`the vault ${vault.root} is not a folder (MeetingAssistant.VaultPath)`, EXIT_USAGE);
  }
  const log = createLoggerFromConfig(config, { destination: pino.destination({ fd: 2, sync: true }) });
  const caches = new RunCaches(vault);
  const server = createMeetingsServer({ vault, settings: config.settings, log, version: packageVersion(), caches });
  const watcher = await watchMeetingFolders(vault, caches.watch, log);
  // Whole lines of at most MAX_MESSAGE_LINE_BYTES reach the transport: a longer one is answered
  // with a JSON-RPC error here, and the server goes on (mcp/bounded-lines.ts).
  const input = process.stdin.pipe(
    new BoundedLines(MAX_MESSAGE_LINE_BYTES, (id) => {
      log.warn({ id, maxBytes: MAX_MESSAGE_LINE_BYTES }, `an MCP message longer than ${MAX_MESSAGE_LINE_BYTES} bytes was dropped and answered with an error (JSON-RPC -32600); the server goes on`);
      process.stdout.write(tooLongAnswer(id, MAX_MESSAGE_LINE_BYTES));
    }),
  );
  const transport = new StdioServerTransport(input, process.stdout, { maxBufferSize: MAX_MESSAGE_LINE_BYTES + 1024 * 1024 });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.connect(transport);
  log.info({ vault: vault.root }, 'MCP server ready on stdio');
  await closed;
  await server.close().catch(() => undefined);
  await watcher.close();
  caches.close();
  log.info('MCP server stopped');
  await flushLogger(log);
  return EXIT_OK;
}
