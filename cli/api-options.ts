import { RelayerApiClient } from './api-client';
import { badInput } from './exit-codes';
import type { OutputOptions } from './output';

/** What a command that calls the HTTP API needs of the global options. */
export interface ApiOptions extends OutputOptions {
  apiUrl: string;
  apiKey?: string;
}

export const apiOf = (options: ApiOptions) => {
  if (!options.apiKey) throw badInput('no API key: pass --api-key or set RELAYER_API_KEY');
  return new RelayerApiClient(options.apiUrl, options.apiKey, (waitSeconds) =>
    process.stderr.write(`rate limited: sending again in ${waitSeconds} s\n`),
  );
};

/** A flag's parser: a whole number from 1 to `max`, or a usage error naming the flag. */
export const wholeNumber = (flag: string, max: number) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw badInput(`${flag}: must be a whole number from 1 to ${max} (got "${value}")`);
  }
  return Number(value);
};
