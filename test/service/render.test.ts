import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/service/paths.js';
import { renderSystemdUnit, systemdExecArg, systemdPathListItem } from '../../src/service/render.js';
import { runs } from '../helpers/host-tools.js';
import { parsePlist } from '../helpers/plist.js';

const HAS_PYTHON_PLISTLIB = runs('python3', ['-c', 'import plistlib']);
const HAS_PLUTIL = runs('plutil', ['-help']);

describe('the shipped launchd/com.meeting-assistant.plist', () => {
  const shipped = path.join(packageRoot(), 'launchd', 'com.meeting-assistant.plist');

  it('is a valid property list as it stands: placeholders only inside <string>, a real ExitTimeOut', async () => {
    const xml = await readFile(shipped, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const plist = parsePlist(xml);
    expect(plist.Label).toBe('com.meeting-assistant');
    expect(plist.ExitTimeOut).toBe(45);
    expect(plist.ThrottleInterval).toBe(30);
    expect(plist.ProgramArguments).toEqual(['@NODE@', '@CLI@', 'run', '--config', '@CONFIG@']);
    // Every placeholder sits in a <string> element (comments aside, where they are just text).
    const withoutComments = xml.replace(/<!--[\s\S]*?-->/g, '');
    const placeholders = [...withoutComments.matchAll(/@[A-Z_]+@/g)].length;
    const inStrings = [...withoutComments.matchAll(/<string>[^<]*@[A-Z_]+@[^<]*<\/string>/g)].length;
    expect(placeholders).toBeGreaterThan(0);
    expect(inStrings).toBe(placeholders);
  });

  it.skipIf(!HAS_PYTHON_PLISTLIB)("is accepted by Python's plistlib as shipped (needs python3)", () => {
    const result = spawnSync('python3', ['-c', 'import plistlib, sys; d = plistlib.load(open(sys.argv[1], "rb")); print(d["ExitTimeOut"])', shipped], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('45');
  });

  it.skipIf(!HAS_PLUTIL)('passes plutil -lint as shipped (needs plutil, macOS)', () => {
    const result = spawnSync('plutil', ['-lint', shipped], { encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});

describe('escaping helpers', () => {
  it('escape systemd arguments and path lists, and reject line breaks', () => {
    expect(systemdExecArg('/a b/$HOME/%h\\"x')).toBe('"/a b/$$HOME/%%h\\\\\\"x"');
    expect(systemdPathListItem('/a b/%i')).toBe('"/a b/%%i"');
    const params = {
      node: '/n',
      cli: '/c',
      config: '/x\ny',
      vault: '/v',
      workdir: '/v',
      extraWritable: [],
      stopTimeoutSeconds: 45,
    };
    expect(() => renderSystemdUnit('ExecStart=@NODE@ @CLI@ @CONFIG@', params)).toThrow(/line break/);
  });
});
