import { spawn } from 'node:child_process';

/**
 * A person's editor as another process, writing notes while the daemon runs: every tick
 * (about a millisecond) it adds one numbered line at the end of each file, either by
 * appending (a sync tool, a logger) or by rewriting the whole file in place (Obsidian-style:
 * read, modify, write). Bounded in count and time; it also stops when `stopFile` exists.
 * Resolves with how many lines it wrote to each file (line i of a file is `<tag> <i>`).
 */

export interface EditorPlan {
  files: string[];
  mode: 'append' | 'rewrite';
  stopFile: string;
  /** Lines per file at most. */
  max: number;
  /** Milliseconds at most. */
  maxMs: number;
  tag: string;
}

const SCRIPT = `
const fs = require('node:fs');
const plan = JSON.parse(process.env.EDITOR_PLAN);
const start = Date.now();
let i = 0;
function tick() {
  if (i >= plan.max || Date.now() - start > plan.maxMs || fs.existsSync(plan.stopFile)) {
    process.stdout.write(JSON.stringify({ lines: i, ms: Date.now() - start }));
    return;
  }
  for (const file of plan.files) {
    const line = plan.tag + ' ' + i + '\\n';
    if (plan.mode === 'append') fs.appendFileSync(file, line);
    else {
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(file, text + (text === '' || text.endsWith('\\n') ? '' : '\\n') + line);
    }
  }
  i++;
  setTimeout(tick, 1);
}
tick();
`;

export function startEditor(plan: EditorPlan): Promise<{ lines: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      env: { ...process.env, EDITOR_PLAN: JSON.stringify(plan) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), plan.maxMs + 15000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out) as { lines: number; ms: number });
      else reject(new Error(`the editor process failed (${code}): ${err}`));
    });
  });
}

/** Line numbers of `tag` lines that are not in `text`, for i below `count`. */
export function missingLines(text: string, tag: string, count: number): number[] {
  const present = new Set(text.split(/\r?\n/));
  const missing: number[] = [];
  for (let i = 0; i < count; i++) if (!present.has(`${tag} ${i}`)) missing.push(i);
  return missing;
}
