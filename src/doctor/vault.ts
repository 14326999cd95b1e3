import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AppConfig, FolderKey } from '../config.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';
import { shellQuote } from '../service/install.js';
import { type Fs, isNotFound, TEMP_SUFFIX } from '../vault/files/fs.js';
import { resolveTemplate, TemplateError } from '../vault/format/template.js';
import { Vault } from '../vault/files/vault.js';
import { isBundledDefaultConfig } from '../example-vault.js';
import { errorText } from './error-text.js';

/**
 * The vault, its folders and files, and the default template: each usable by the daemon?
 * Only what a person must act on fails: a folder `run` makes itself (every configured one,
 * and the bundled config's vault, which it seeds with the example) is said as such when the
 * folder it would be made in is writable (docs/design.md §5, §6).
 */

const FOLDER_KEYS: FolderKey[] = ['Meetings', 'Transcripts', 'Summaries', 'Context', 'Projects', 'Identities'];
const MADE_AT_START: FolderKey[] = ['Transcripts', 'Summaries', 'Projects'];

export async function checkVault(config: AppConfig, fs: Fs): Promise<DoctorCheck[]> {
  const root = config.layout.root;
  const vault = await checkFolder(fs, 'vault', root, 'VaultPath', isBundledDefaultConfig(config.file) ? 'run seeds it with the example vault at first start' : undefined);
  if (vault.status === 'fail') {
    return [vault, check('folders', 'skip', 'not checked: the vault folder is not usable')];
  }
  const checks = [vault];
  for (const key of FOLDER_KEYS) {
    // `run` makes the folders it watches at its start (intake.ts); the others with their first note.
    const made = MADE_AT_START.includes(key) ? 'run creates it at first start' : 'made with the first note written there';
    checks.push(await checkFolder(fs, `folder ${key}`, config.layout.folders[key], `Folders.${key}`, made));
  }
  const { glossary, dictionary } = config.layout.files;
  checks.push(await checkFile(fs, 'file Glossary', glossary, 'Files.Glossary', 'the agent reads it as empty'));
  checks.push(await checkFile(fs, 'file Dictionary', dictionary, 'Files.Dictionary', 'created by the first new word'));
  if (config.settings.Agent.DefaultTemplate.trim()) checks.push(await checkDefaultTemplate(config, fs));
  return checks;
}

/** A file the daemon may create: its folder must be usable; the file itself may not exist yet. */
async function checkFile(fs: Fs, name: string, file: string, setting: string, whenMissing: string): Promise<DoctorCheck> {
  const madeWith = 'made with the file';
  const folder = await checkFolder(fs, name, path.dirname(file), setting, madeWith);
  if (folder.status === 'pass') {
    const exists = await existsFile(fs, file);
    const madeLater = folder.detail.endsWith(madeWith) ? `; its folder ${path.dirname(file)} is made with it` : '';
    folder.detail = exists ? `${file} exists` : `${file} does not exist yet (${whenMissing})${madeLater}`;
  }
  return folder;
}

/** A default template that cannot be found fails every meeting without its own: better said now. */
async function checkDefaultTemplate(config: AppConfig, fs: Fs): Promise<DoctorCheck> {
  try {
    const template = await resolveTemplate(new Vault(fs, config.layout), config.settings.Agent.DefaultTemplate.trim(), 'config');
    return check('default template', 'pass', `${template.path} is the summary template of meetings that name none`);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    return check(
      'default template',
      'fail',
      err.message,
      'Point MeetingAssistant.Agent.DefaultTemplate at a note with headings (a vault path like Templates/Stand-up.md, or a name), or empty it for the built-in structure.',
    );
  }
}

async function existsFile(fs: Fs, file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * A folder the daemon must write in. `madeByRun` says how `run` makes it when it is missing:
 * then it passes as long as the folder it would be made in is writable; without it a missing
 * folder fails (the vault of a person's own config: a typo must not start an empty vault).
 */
async function checkFolder(fs: Fs, name: string, folder: string, setting: string, madeByRun?: string): Promise<DoctorCheck> {
  const key = `MeetingAssistant.${setting}`;
  try {
    const stat = await fs.stat(folder);
    if (!stat.isDirectory()) {
      return check(name, 'fail', `${folder} is not a folder`, `Point ${key} at a folder, or move the file ${folder} away.`);
    }
  } catch (err) {
    // ENOTDIR: a file stands where a folder above it should be; missingFolder names it.
    if (isNotFound(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return missingFolder(fs, name, folder, key, madeByRun);
    return check(name, 'fail', `${folder} cannot be read: ${errorText(err)}`, permissionFix(folder));
  }
  const problem = await writeProblem(fs, folder);
  if (problem) return check(name, 'fail', `${folder} is not writable: ${problem}`, permissionFix(folder));
  return check(name, 'pass', `${folder} exists and is writable`);
}

async function missingFolder(fs: Fs, name: string, folder: string, key: string, madeByRun: string | undefined): Promise<DoctorCheck> {
  const create = `Create it (mkdir -p ${shellQuote(folder)}) or set ${key} to the folder you use.`;
  if (!madeByRun) return check(name, 'fail', `${folder} does not exist`, create);
  // `run` makes it with mkdir -p: that works when the nearest folder that exists is writable.
  let parent = path.dirname(folder);
  for (;;) {
    const stat = await fs.stat(parent).catch(() => undefined);
    if (stat) {
      if (!stat.isDirectory()) return check(name, 'fail', `${folder} does not exist, and ${parent} is a file, not a folder`, `Move the file ${parent} away, or set ${key} to the folder you use.`);
      break;
    }
    if (path.dirname(parent) === parent) break;
    parent = path.dirname(parent);
  }
  const problem = await writeProblem(fs, parent);
  if (problem) return check(name, 'fail', `${folder} does not exist, and ${parent}, where run would create it, is not writable: ${problem}`, permissionFix(parent));
  return check(name, 'pass', `${folder} does not exist yet: ${madeByRun}`);
}

/**
 * The only reliable writability test is writing: permissions, ACLs, read-only mounts and
 * systemd's ProtectSystem all show up here. The temp suffix keeps the watcher away.
 */
async function writeProblem(fs: Fs, folder: string): Promise<string | undefined> {
  const probe = path.join(folder, `.ma-doctor-${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  try {
    await fs.writeFile(probe, 'meeting-assistant doctor\n', { flag: 'wx' });
    await fs.unlink(probe);
    return undefined;
  } catch (err) {
    await fs.unlink(probe).catch(() => undefined);
    return errorText(err);
  }
}

function permissionFix(folder: string): string {
  return `Give the user that runs meeting-assistant read and write access (e.g. chown -R "$USER" ${shellQuote(folder)}; chmod u+rwX ${shellQuote(folder)}).`;
}
