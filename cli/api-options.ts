import { createApiClient } from './api-client';
import { badInput } from './exit-codes';
import type { OutputOptions } from './output';

/** What a command that calls the HTTP API needs of the global options. */
export interface ApiOptions extends OutputOptions {
  apiUrl: string;
  apiKey?: string;
}

export const apiOf = (options: ApiOptions) => {
  if (!options.apiKey) throw badInput('no API key: pass --api-key or set RELAYER_API_KEY');
  return createApiClient(options.apiUrl, options.apiKey, (waitSeconds) =>
    process.stderr.write(`rate limited: sending again in ${waitSeconds} s\n`),
  );
};
