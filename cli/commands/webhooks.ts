import type { Command } from 'commander';
import { apiOf, type ApiOptions } from '../api-options';
import { deliveryTable, endpointTable, print } from '../output';

/** Webhook endpoints (a tenant's, or the operators') and their delivery log. */
export function addWebhookCommands(program: Command, api: () => ApiOptions): void {
  const webhooks = program
    .command('webhooks')
    .description(
      "webhook endpoints (Standard Webhooks): where a tenant is told of its intents' state changes, and the operators of the relayer's wallets",
    );
  webhooks
    .command('add')
    .description(
      "register an endpoint (a tenant key's: its intents; an operator key's: wallet.low_balance, wallet.topped_up, treasury.low_balance and top-ups); prints its secret, once",
    )
    .requiredOption('--url <url>', 'https (http to loopback only where the relayer allows it)')
    .option(
      '--events <types>',
      'comma-separated types: intent.<status>, and for operators the wallet events (default: every one)',
    )
    .action(async (flags: { url: string; events?: string }) => {
      const options = api();
      const endpoint = await apiOf(options).addWebhookEndpoint({
        url: flags.url,
        ...(flags.events && { eventTypes: flags.events.split(',').map((type) => type.trim()) }),
      });
      print(
        options,
        endpoint,
        () =>
          `${endpoint.id} → ${endpoint.url} (${endpoint.eventTypes.join(', ')})\n` +
          `secret: ${endpoint.secret}\n(shown this once: keep it where your receiver verifies)`,
      );
    });
  webhooks
    .command('list')
    .description('the endpoints, their events and status')
    .action(async () => {
      const options = api();
      const list = await apiOf(options).webhookEndpoints();
      print(options, list, () => endpointTable(list));
    });
  for (const [action, what] of [
    [
      'rotate-secret',
      'a new secret, printed once; the old one signs beside it for the grace period',
    ],
    ['enable', 'enable an endpoint again (after a 410): its waiting deliveries resume'],
    ['disable', 'disable an endpoint: its deliveries wait'],
  ] as const) {
    webhooks
      .command(`${action} <endpointId>`)
      .description(what)
      .action(async (endpointId: string) => {
        const options = api();
        const answer = await apiOf(options).webhookEndpointAction(endpointId, action);
        print(options, answer, () =>
          Object.entries(answer)
            .map(([key, value]) => `${key}: ${String(value)}`)
            .join('\n'),
        );
      });
  }
  webhooks
    .command('deliveries <endpointId>')
    .description("an endpoint's delivery log, newest first")
    .option('--dead', 'only the dead letters (retries ran out)')
    .action(async (endpointId: string, flags: { dead?: boolean }) => {
      const options = api();
      const list = await apiOf(options).webhookDeliveries(
        endpointId,
        flags.dead ? 'dead' : undefined,
      );
      print(options, list, () => deliveryTable(list));
    });
  webhooks
    .command('redeliver <endpointId> <eventId>')
    .description('send an event to the endpoint again (the same webhook-id)')
    .action(async (endpointId: string, eventId: string) => {
      const options = api();
      await apiOf(options).redeliverWebhook(endpointId, eventId);
      print(options, { endpointId, eventId }, () => `${eventId} goes to ${endpointId} again`);
    });
}
