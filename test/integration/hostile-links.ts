import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Meeting notes whose links lead where `mcp` and `ask` must not read (issue 43 point 1,
 * docs/design.md §10 "Confinement"): one meeting per way in, each holding a secret that must
 * never reach an MCP client or a model's request.
 */

export const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return process.platform !== 'win32';
  } catch {
    return false;
  }
})();

export interface WayIn {
  /** What the test says it is. */
  what: string;
  /** The meeting note (vault-relative, with .md). */
  meeting: string;
  part: 'summary' | 'transcript';
}

export interface HostileLinks {
  ways: WayIn[];
  /** Texts that must never be shown: the config's key, the token, /etc/passwd's first line, the dot-folder's and the outside folder's notes. */
  secrets: string[];
  /** Paths of notes that are themselves links out (read_meeting by their own path). */
  ownPaths: string[];
}

function write(root: string, rel: string, text: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const meeting = (title: string, links: string) =>
  `---\ntitle: ${title}\nstart_time: 2026-11-25T10:00:00Z\nattendees: [Alice]\nprojects: [Alpha]\n${links}---\nNotes.\n`;

/**
 * Writes the hostile meetings into `vault`. `configFile` is a file outside the vault holding
 * `configSecret`; `tokenFile` is the vault's `.meeting-assistant/token` (written when absent).
 */
export function writeHostileLinks(vault: string, options: { configFile: string; configSecret: string; tokenFile: string; outside: string }): HostileLinks {
  const ways: WayIn[] = [];
  const secrets = [options.configSecret];
  // 1. `summary: "[[../cfg/config.json]]"`: the config, API key included.
  const toConfig = path.relative(vault, options.configFile).split(path.sep).join('/');
  write(vault, 'Meetings/Config leak.md', meeting('Config leak', `summary: "[[${toConfig}]]"\n`));
  ways.push({ what: 'a summary link to the config file', meeting: 'Meetings/Config leak.md', part: 'summary' });

  // 2. `transcript: "[[../../../etc/passwd]]"`, as many `..` as reach the root.
  const up = '../'.repeat(vault.split('/').filter((s) => s !== '').length);
  write(vault, 'Meetings/Etc leak.md', meeting('Etc leak', `transcript: "[[${up}etc/passwd]]"\n`));
  ways.push({ what: 'a transcript link to /etc/passwd', meeting: 'Meetings/Etc leak.md', part: 'transcript' });
  const passwd = readFileSync('/etc/passwd', 'utf8').split('\n')[0]!;
  if (passwd.length > 5) secrets.push(passwd);

  // 3. A summary that is a symbolic link to the HTTP token.
  let token: string;
  try {
    token = readFileSync(options.tokenFile, 'utf8').trim();
  } catch {
    token = `TOKEN-SECRET-${Math.random().toString(36).slice(2)}`;
    mkdirSync(path.dirname(options.tokenFile), { recursive: true });
    writeFileSync(options.tokenFile, `${token}\n`);
  }
  secrets.push(token);
  write(vault, 'Meetings/Token leak.md', meeting('Token leak', 'summary: "[[Meetings/Summaries/Token leak]]"\n'));
  mkdirSync(path.join(vault, 'Meetings/Summaries'), { recursive: true });
  symlinkSync(options.tokenFile, path.join(vault, 'Meetings/Summaries/Token leak.md'));
  ways.push({ what: 'a summary that is a symbolic link to .meeting-assistant/token', meeting: 'Meetings/Token leak.md', part: 'summary' });

  // 4. A note in a dot-folder.
  write(vault, '.obsidian/secret.md', '---\nstatus: done\n---\n- [ ] Alice: DOTFOLDER-SECRET\n');
  secrets.push('DOTFOLDER-SECRET');
  write(vault, 'Meetings/Dot leak.md', meeting('Dot leak', 'summary: "[[.obsidian/secret]]"\n'));
  ways.push({ what: 'a summary link into a dot-folder', meeting: 'Meetings/Dot leak.md', part: 'summary' });

  // 5. A symbolic link to a folder out of the vault, inside the summaries' folder.
  write(options.outside, 'Folder leak.md', '---\nstatus: done\nprojects: [Alpha]\n---\n- [ ] Alice: FOLDER-SECRET\n');
  secrets.push('FOLDER-SECRET');
  symlinkSync(options.outside, path.join(vault, 'Meetings/Summaries/Shared'));
  write(vault, 'Meetings/Folder leak.md', meeting('Folder leak', 'summary: "[[Meetings/Summaries/Shared/Folder leak]]"\n'));
  ways.push({ what: 'a summary through a symbolic link to a folder out of the vault', meeting: 'Meetings/Folder leak.md', part: 'summary' });

  // 6. A transcript that is a FIFO: refused at once, not waited on.
  if (hasMkfifo) {
    mkdirSync(path.join(vault, 'Meetings/Transcripts'), { recursive: true });
    execFileSync('mkfifo', [path.join(vault, 'Meetings/Transcripts/Fifo.md')]);
    write(vault, 'Meetings/Fifo.md', meeting('Fifo', 'transcript: "[[Meetings/Transcripts/Fifo]]"\n'));
    ways.push({ what: 'a transcript that is a FIFO', meeting: 'Meetings/Fifo.md', part: 'transcript' });
  }
  return { ways, secrets, ownPaths: ['Meetings/Summaries/Token leak.md', 'Meetings/Summaries/Shared/Folder leak.md', '.obsidian/secret.md'] };
}

/** The secrets found in `text`. */
export function leaked(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => text.includes(s));
}
