// The package as an npm user gets it (docs/install.md "Install"): `npm pack`, then
// `npm install -g` of the tarball into a private prefix, from npm's cache only (`npm ci` has
// filled it), then the installed CLI: --version, init (the example), doctor. Fails on an
// install-scripts warning, a shipped source map, a missing LICENSE or docs/. Run by .ci/run;
// by hand: `node scripts/check-package.mjs` (about a minute; it builds dist/ through prepack).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

const problems = [];
const expect = (ok, problem) => {
  if (!ok) problems.push(problem);
};

/** A command's exit code and both streams, without throwing. */
function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: 180_000, ...options });
  return { code: result.status, out: result.stdout ?? '', err: result.stderr ?? '', all: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ma-package-'));
try {
  // An environment of its own: no config of the person's, no overrides, the prefix's bin first.
  const home = path.join(tmp, 'home');
  const prefix = path.join(tmp, 'prefix');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('meetingassistant__')));
  Object.assign(env, { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), npm_config_cache: process.env.npm_config_cache ?? path.join(os.homedir(), '.npm'), NO_COLOR: '1', npm_config_update_notifier: 'false' });

  const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }))[0];
  const files = packed.files.map((f) => f.path);
  const tarball = path.join(tmp, packed.filename);
  console.log(`packed ${packed.filename}: ${files.length} files, ${(packed.size / 1024).toFixed(0)} kB (${(packed.unpackedSize / 1024).toFixed(0)} kB unpacked)`);
  expect(!files.some((f) => f.endsWith('.map')), `the tarball ships source maps: ${files.filter((f) => f.endsWith('.map')).slice(0, 3).join(', ')}…`);
  for (const wanted of ['LICENSE', 'README.md', 'BENCHMARKS.md', 'dist/cli.js', 'docs/install.md', 'config.default.json', 'example-vault/Meetings']) {
    expect(files.some((f) => f === wanted || f.startsWith(`${wanted}/`)), `the tarball lacks ${wanted}`);
  }

  // The shipped Markdown links only to what is shipped (the README's docs/, BENCHMARKS.md …).
  const shipped = new Set(files);
  const isShipped = (target) => shipped.has(target) || files.some((f) => f.startsWith(`${target}/`));
  const unpacked = path.join(tmp, 'unpacked');
  execFileSync('tar', ['-xzf', tarball, '-C', tmp]);
  execFileSync('mv', [path.join(tmp, 'package'), unpacked]);
  for (const page of files.filter((f) => f.endsWith('.md') && !f.startsWith('example-vault/'))) {
    // Links in code (examples of note links) are no links.
    const text = readFileSync(path.join(unpacked, page), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    for (const [, link] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?\)/g)) {
      if (/^[a-z]+:/i.test(link)) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(page), decodeURIComponent(link)));
      expect(isShipped(target.replace(/\/$/, '')), `${page} links to ${link}, which the package does not hold`);
    }
  }

  // `npm ci` caches the dependencies' tarballs but not the registry's documents a global
  // install resolves versions with: when those are missing, npm may fetch them once
  // (--prefer-offline), and the next check runs offline.
  const installArgs = ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball];
  let install = run(NPM, [...installArgs, '--offline'], { cwd: tmp, env });
  if (install.code !== 0 && /ENOTCACHED/.test(install.all)) {
    console.log('npm cache lacks registry documents: installing with --prefer-offline');
    install = run(NPM, [...installArgs, '--prefer-offline'], { cwd: tmp, env });
  }
  expect(install.code === 0, `npm install -g --offline of the tarball failed (${install.code}):\n${install.all}`);
  expect(!/install.scripts|allowScripts/i.test(install.all), `the install warns about install scripts:\n${install.all}`);

  const bin = path.join(prefix, 'bin', 'meeting-assistant');
  const cli = (args, cwd = tmp) => run(bin, args, { cwd, env });
  if (install.code === 0) {
    const version = cli(['--version']);
    expect(version.code === 0 && version.out.trim() === manifest.version, `--version printed ${JSON.stringify(version.all)}, not ${manifest.version}`);

    const folder = path.join(tmp, 'try');
    const init = cli(['init', folder]);
    expect(init.code === 0, `init failed (${init.code}):\n${init.all}`);
    expect(existsSync(path.join(folder, 'config.json')) && existsSync(path.join(folder, 'vault', 'Meetings')), `init wrote no config.json and vault/ in ${folder}`);

    // No model server here: the endpoint fails (fast, on a closed port); the config and the
    // example vault's folders do not.
    const doctorEnv = { ...env, MeetingAssistant__Endpoint__BaseUrl: 'http://127.0.0.1:9/v1', MeetingAssistant__Http__Enabled: 'false' };
    const doctor = run(bin, ['doctor'], { cwd: folder, env: doctorEnv });
    expect(doctor.code === 0 || doctor.code === 1, `doctor exited ${doctor.code}:\n${doctor.all}`);
    expect(/^\[ok {2}\] config\s+.*config\.json is valid/m.test(doctor.out), `doctor did not take ${folder}/config.json:\n${doctor.all}`);
    const failed = doctor.out.split('\n').filter((line) => line.startsWith('[FAIL]') && !/\b(endpoint|api key|model|context length|tool calling)\b/.test(line));
    expect(failed.length === 0, `doctor fails on the example beyond the endpoint:\n${failed.join('\n')}`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`check-package: ${problems.length} problem(s):\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log('check-package: the tarball installs quietly; --version, init and doctor work from it');
