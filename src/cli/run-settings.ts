import type { RunSettings } from '../bench/settings.js';
import type { Options } from '../config/options.js';

// Resolved options (flags over YAML over defaults) -> the runner's settings: the same object less what the CLI
// alone reads (RunSettings' CliOnlyKey), with the API key from the flag, the environment or a file.
export function toRunSettings(o: Options<'run'>, apiKey: string | undefined): RunSettings {
  const {
    config: _config,
    apiKeyFile: _apiKeyFile,
    quiet: _quiet,
    agentTokenFile: _tokenFile,
    apiKey: _flag,
    ...settings
  } = o;
  return apiKey !== undefined ? { ...settings, apiKey } : settings;
}
