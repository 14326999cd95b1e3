import { type AppConfig, ConfigError } from '../config.js';
import { isBundledDefaultConfig } from '../example-vault.js';
import { check, type DoctorCheck } from '../agent/model/endpoint-check.js';

/** The config check: every problem of a config that did not load, or where the settings came from. */
export function checkConfig(config: AppConfig | ConfigError): DoctorCheck {
  if (config instanceof ConfigError) {
    return check(
      'config',
      'fail',
      `${config.file ? `${config.file}: ` : ''}${config.problems.length} problem${config.problems.length === 1 ? '' : 's'}:\n${config.problems.map((p) => `- ${p}`).join('\n')}`,
      'Correct each key named above (see config.example.json for every key with its default), then run doctor again.',
    );
  }
  // Which file was taken, and how to check another: `npm start` in the checkout and the
  // commands take the same one (commands/common.ts checkoutConfig, docs/design.md §5).
  if (isBundledDefaultConfig(config.file)) {
    return check('config', 'pass', `${config.file} is valid (the bundled config, which npm start runs while the checkout has no config.json; another: --config F)`);
  }
  return config.file
    ? check('config', 'pass', `${config.file} is valid`)
    : check(
        'config',
        'warn',
        'no config file found (./config.json, $XDG_CONFIG_HOME/meeting-assistant/config.json): using the defaults and environment overrides',
        'Create a config file (copy config.example.json) and pass it with --config, or run doctor in the folder that holds it.',
      );
}
