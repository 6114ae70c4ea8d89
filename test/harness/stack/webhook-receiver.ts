import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedEvent {
  webhookId: string;
  type: string;
  intentId: string;
  sequence: number;
  /** Whether it verified with each secret the receiver holds, in the order given. */
  verifiedWith: boolean[];
  at: number;
  /** The event's data as sent (the intent's snapshot, and what its type adds). */
  data: Record<string, unknown>;
}

interface EventBody {
  type: string;
  data: { sequence: number; intent: { id: string } } & Record<string, unknown>;
}

/** How the receiver answers: 200, 500, 410, or never (the request hangs). */
export type ReceiverMode = 'ok' | 'fail' | 'gone' | 'hang';

/**
 * A webhook receiver on loopback, as a tenant would write one: it verifies every request with the
 * `standardwebhooks` package against the secrets it holds (a rejected one is answered 401 and not
 * recorded) and keeps every event it accepted, duplicates included, in arrival order.
 */
export class WebhookReceiver {
  readonly received: ReceivedEvent[] = [];
  readonly rejected: string[] = [];
  /** The intent of every request answered 500 or 410, in arrival order. */
  readonly refusedIntents: string[] = [];
  mode: ReceiverMode = 'ok';
  private readonly hanging: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private secrets: string[],
  ) {}

  static async start(secrets: string[] = []): Promise<WebhookReceiver> {
    const handlers: { handle?: WebhookReceiver['handle'] } = {};
    const server = createServer((request, response) => handlers.handle!(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`, secrets);
    handlers.handle = (request, response) => receiver.handle(request, response);
    return receiver;
  }

  /** The secrets requests are verified with (a request passes with any one). */
  holdSecrets(secrets: string[]): void {
    this.secrets = secrets;
  }

  /** Each event once (the first arrival of its webhook-id), as a receiver dedupes them. */
  deduped(): ReceivedEvent[] {
    const seen = new Set<string>();
    return this.received.filter((event) => !seen.has(event.webhookId) && seen.add(event.webhookId));
  }

  /** The deduped events of each intent, in arrival order. */
  byIntent(): Map<string, ReceivedEvent[]> {
    const byIntent = new Map<string, ReceivedEvent[]>();
    for (const event of this.deduped()) {
      byIntent.set(event.intentId, [...(byIntent.get(event.intentId) ?? []), event]);
    }
    return byIntent;
  }

  async close(): Promise<void> {
    for (const response of this.hanging.splice(0)) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (this.mode === 'hang') {
        this.hanging.push(response);
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      if (this.mode === 'fail' || this.mode === 'gone') {
        this.refusedIntents.push((JSON.parse(body) as EventBody).data.intent.id);
        response.writeHead(this.mode === 'fail' ? 500 : 410).end();
        return;
      }
      const headers = {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      };
      const verifiedWith = this.secrets.map((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      if (!verifiedWith.includes(true)) {
        this.rejected.push(headers['webhook-id']);
        response.writeHead(401).end();
        return;
      }
      const parsed = JSON.parse(body) as EventBody;
      this.received.push({
        webhookId: headers['webhook-id'],
        type: parsed.type,
        intentId: parsed.data.intent.id,
        sequence: parsed.data.sequence,
        verifiedWith,
        at: Date.now(),
        data: parsed.data,
      });
      response.writeHead(204).end();
    });
  }
}
