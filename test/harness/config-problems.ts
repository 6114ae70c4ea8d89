import { ConfigError, loadConfig } from '../../workers/config/load';

/** The configuration problems `env` has, one line each (and fails the test if it has none). */
export function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a configuration error');
}
