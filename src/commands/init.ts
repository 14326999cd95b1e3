import path from 'node:path';
import { BUNDLED_DEFAULT_CONFIG, EXAMPLE_VAULT_DIR, SeedError, seedWorkingVault } from '../example-vault.js';
import { shellQuote } from '../service/install.js';
import { readText, statIfExists } from '../vault/files/fs.js';
import { CliError, type CommandDeps, EXIT_FAILED, EXIT_OK, EXIT_USAGE, withDefaults } from './common.js';

/** Where the example comes from: the package's own files unless a test names others. */
export interface InitDeps extends CommandDeps {
  exampleDir: string;
  defaultConfig: string;
}

/**
 * `init [folder]`: the example to try from an installed package, whose bundled config would
 * seed a vault inside node_modules (docs/design.md §6). Writes `<folder>/config.json` (the
 * bundled settings: the vault `./vault` beside it, a local Ollama) and the example vault in
 * `<folder>/vault`; never overwrites a config or fills a vault that holds anything.
 */
export async function init(folder: string | undefined, given: Partial<InitDeps> = {}): Promise<number> {
  const deps = withDefaults<InitDeps>(given, { exampleDir: EXAMPLE_VAULT_DIR, defaultConfig: BUNDLED_DEFAULT_CONFIG });
  const { fs, io } = deps;
  const target = path.resolve(deps.cwd, folder ?? '.');
  const where = await statIfExists(fs, target);
  if (where && !where.isDirectory()) throw new CliError(`${target} is not a folder`, EXIT_USAGE);
  const config = path.join(target, 'config.json');
  if (await statIfExists(fs, config)) {
    throw new CliError(`${config} already exists: init never overwrites a config (name another folder)`, EXIT_FAILED);
  }
  const vault = path.join(target, 'vault');
  await fs.mkdir(target, { recursive: true });
  try {
    const { seeded } = await seedWorkingVault({ fs, exampleDir: deps.exampleDir, vaultDir: vault });
    if (!seeded) throw new CliError(`${vault} is not empty: init fills only a new or empty vault (name another folder)`, EXIT_FAILED);
  } catch (err) {
    if (err instanceof SeedError) throw new CliError(err.message, EXIT_FAILED);
    throw err;
  }
  // 'wx': a config that appeared meanwhile is still never overwritten.
  await fs.writeFile(config, await readText(fs, deps.defaultConfig), { flag: 'wx' });
  const cd = path.relative(deps.cwd, target) || '.';
  io.out(`config: ${config}`);
  io.out(`vault: ${vault} (the example: two meetings finished, one still to finish)`);
  io.out('');
  io.out('Next:');
  if (cd !== '.') io.out(`  cd ${shellQuote(cd)}`);
  io.out('  meeting-assistant doctor     # the endpoint: a local Ollama unless you edit config.json');
  io.out('  meeting-assistant run        # summarizes the finished meetings into vault/Meetings/Summaries');
  return EXIT_OK;
}
