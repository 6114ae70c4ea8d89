import { TimedOutError } from '../../domain/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { formatEther } from 'viem';
import { readinessProbes } from '../../service/readiness';
import { reconciliationWarnings } from '../../service/deposits';
import { listPauses } from '../../service/pauses';
import { pauseSubject } from '../../domain/pause';
import { intentsWaitingForFunds, lowTreasuries, lowWallets } from '../../service/wallet-standing';
import type { ApiContext } from '../api-context';

const checkTimeoutMs = 2000;

const readinessSchema = z.object({
  ready: z.boolean(),
  checks: z.record(z.string(), z.string()).describe('"ok" or what failed'),
  warnings: z
    .array(z.string())
    .describe(
      "what an operator should see to, without making the process unready: operators' pauses in force, low wallets and treasuries",
    ),
});

/** `work`, or a rejection once the check's time is up. */
async function withinCheckTime<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new TimedOutError({ what: 'no answer', afterMs: checkTimeoutMs })),
          checkTimeoutMs,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(probe: () => Promise<unknown>): Promise<string> {
  try {
    await withinCheckTime(probe());
    return 'ok';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * Wallets below LOW_BALANCE_ETH and treasuries below their own mark, as lines; a chain that does
 * not answer is its check's part.
 */
async function walletWarnings(deps: ApiContext['deps']): Promise<string[]> {
  try {
    const [wallets, treasuries, waiting] = await withinCheckTime(
      Promise.all([lowWallets(deps), lowTreasuries(deps), intentsWaitingForFunds(deps)]),
    );
    return [
      ...waiting.map(
        ({ chainId, reasonCode, count }) =>
          `${count === 1 ? '1 intent waits' : `${count} intents wait`} on chain ${chainId} for a funded hot wallet (${reasonCode}): top its wallets up (topUps, or tokenTopUps for a token)`,
      ),
      ...treasuries.map(
        (treasury) =>
          `treasury ${treasury.address} on chain ${treasury.chainId}: ${formatEther(treasury.balanceWei)} ETH, below its low mark: top-ups will stop, fund it`,
      ),
      ...wallets.map(
        (wallet) =>
          `wallet ${wallet.address} on chain ${wallet.chainId}: ${formatEther(wallet.balanceWei)} ETH, below LOW_BALANCE_ETH`,
      ),
    ];
  } catch {
    return [];
  }
}

/** The pauses in force, as lines: paused is not unready (the API and the drain go on). */
async function pauseWarnings(deps: ApiContext['deps']): Promise<string[]> {
  try {
    const pauses = await withinCheckTime(listPauses(deps, false));
    return pauses.map(
      (pause) =>
        `paused: ${pauseSubject(pause)} since ${pause.pausedAt.toISOString()} by ${pause.pausedBy}` +
        `${pause.refuseAdmission ? ', refusing new intents' : ''}: ${pause.note} (${pause.id})`,
    );
  } catch {
    return [];
  }
}

/** Liveness (the process answers) and readiness (it can do its work right now). */
export const healthRoutes: FastifyPluginAsyncZod<ApiContext> = async (app, context) => {
  const { deps } = context;

  app.get('/healthz', {
    schema: { summary: 'Liveness', response: { 200: z.object({ status: z.literal('ok') }) } },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    schema: {
      summary: 'Readiness: Temporal, the database and every chain answer, and not shutting down',
      response: { 200: readinessSchema, 503: readinessSchema },
    },
    handler: async (_request, reply) => {
      // At once, so a slow dependency costs one timeout, not one per check.
      const probes = readinessProbes(deps);
      const [results, paused, low, unreconciled] = await Promise.all([
        Promise.all(probes.map(({ probe }) => check(probe))),
        pauseWarnings(deps),
        walletWarnings(deps),
        withinCheckTime(reconciliationWarnings(deps)).catch(() => []),
      ]);
      const warnings = [...paused, ...low, ...unreconciled];
      const checks = Object.fromEntries(probes.map(({ name }, i) => [name, results[i]!]));
      if (context.isClosing()) checks.process = 'shutting down';
      const ready = Object.values(checks).every((result) => result === 'ok');
      return reply.code(ready ? 200 : 503).send({ ready, checks, warnings });
    },
  });

  app.get('/metrics', {
    schema: { summary: 'Prometheus metrics of this process', hide: false },
    handler: async (_request, reply) => {
      reply.header('content-type', deps.registry.contentType);
      return deps.registry.metrics();
    },
  });
};
