import { connectionsSettings } from './connections';
import { temporalSettings } from './temporal';
import { processSettings } from './process';
import { quotaSettings } from './quota';
import { telemetrySettings } from './telemetry';
import { transactionsSettings } from './transactions';
import { walletsSettings } from './wallets';
import { versioningSettings } from './versioning';
import { webhooksSettings } from './webhooks';
import { depositsSettings } from './deposits';

/**
 * Every setting of a worker process: its environment variable, its default and what it means.
 * Parsed once at start; a bad value stops the process with the variable's name. The README's
 * configuration table is generated from this list (`npm run docs:config`) and checked by a test.
 */
export const settings = {
  ...temporalSettings,
  ...connectionsSettings,
  ...walletsSettings,
  ...transactionsSettings,
  ...quotaSettings,
  ...processSettings,
  ...versioningSettings,
  ...webhooksSettings,
  ...depositsSettings,
  ...telemetrySettings,
};
