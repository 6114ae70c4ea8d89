import { ApiTransport } from '../api-transport';
import { assetRoutes } from './assets';
import { batchRoutes } from './batches';
import { depositRoutes } from './deposits';
import { intentRoutes } from './intents';
import { pauseRoutes } from './pauses';
import { policyRoutes } from './policies';
import { scheduleRoutes } from './schedules';
import { walletRoutes } from './wallets';
import { webhookRoutes } from './webhooks';

export { ApiError, type ApiAnswer } from '../api-transport';
export type { AttemptView, BatchItemResultView, BatchView, SubmitBody } from '../api-views';

const routes = {
  ...intentRoutes,
  ...batchRoutes,
  ...walletRoutes,
  ...assetRoutes,
  ...webhookRoutes,
  ...policyRoutes,
  ...pauseRoutes,
  ...scheduleRoutes,
  ...depositRoutes,
};

/**
 * The relayer's HTTP API for scripts and tests: one method per endpoint (ApiTransport's call),
 * written by resource in this folder and gathered on one client.
 */
export type RelayerApiClient = ApiTransport & typeof routes;

export const createApiClient = (
  ...transport: ConstructorParameters<typeof ApiTransport>
): RelayerApiClient => Object.assign(new ApiTransport(...transport), routes);
