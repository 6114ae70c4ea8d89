import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { addressRefusal, eventBody, subscribesTo, urlRefusal } from '../../domain/webhooks';
import { IntentStatus, type Intent } from '../../domain/intent';
import { newWebhookSecret, secretBox } from '../../webhooks/secret-box';
import { webhookHeaders } from '../../webhooks/signing';

const strict = { allowLoopback: false };
const dev = { allowLoopback: true };

describe('webhook endpoints: where a webhook may go', () => {
  it.each([
    ['8.8.8.8', undefined],
    ['2001:4860:4860::8888', undefined],
    ['10.0.0.7', 'private'],
    ['192.168.1.1', 'private'],
    ['172.16.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::ffff:10.0.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
  ])('%s: %s', (address, range) => {
    const refusal = addressRefusal(address, strict);
    if (range === undefined) expect(refusal).toBeUndefined();
    else expect(refusal).toBe(`${address} is a ${range} address`);
  });

  it('lets loopback through only where an operator allows it, and private ranges never', () => {
    expect(addressRefusal('127.0.0.1', dev)).toBeUndefined();
    expect(addressRefusal('::1', dev)).toBeUndefined();
    expect(addressRefusal('10.0.0.7', dev)).toBe('10.0.0.7 is a private address');
  });

  it('takes https; http only to a loopback host where allowed; never credentials in the URL', () => {
    expect(urlRefusal('https://hooks.example.com/x', strict)).toBeUndefined();
    expect(urlRefusal('http://hooks.example.com/x', strict)).toMatch(/^http is refused/);
    expect(urlRefusal('http://127.0.0.1:9000/x', dev)).toBeUndefined();
    expect(urlRefusal('http://localhost:9000/x', dev)).toBeUndefined();
    expect(urlRefusal('http://hooks.example.com/x', dev)).toMatch(/^http is refused/);
    expect(urlRefusal('https://user:pw@hooks.example.com/', strict)).toMatch(/credentials/);
    expect(urlRefusal('not a url', strict)).toBe('"not a url" is not a URL');
  });

  it('an endpoint subscribed to * gets every type; otherwise only those it named', () => {
    expect(subscribesTo(['*'], 'intent.confirmed')).toBe(true);
    expect(subscribesTo(['intent.failed'], 'intent.confirmed')).toBe(false);
  });
});

describe('webhook secrets and signatures', () => {
  it('seals secrets so only the key opens them, and a changed byte is refused', () => {
    const box = secretBox(randomBytes(32));
    const secret = newWebhookSecret();
    const sealed = box.seal(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed)).toBe(secret);
    expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow();
    const [version, nonce, tag, ciphertext] = sealed.split(':');
    const flipped = `${ciphertext![0] === 'A' ? 'B' : 'A'}${ciphertext!.slice(1)}`;
    expect(() => box.open([version, nonce, tag, flipped].join(':'))).toThrow();
  });

  it('signs id.timestamp.body for each secret: the Standard Webhooks library verifies either', () => {
    const [old, current] = [newWebhookSecret(), newWebhookSecret()];
    const body = '{"type":"intent.confirmed"}';
    const headers = webhookHeaders('evt_1', new Date(), body, [current, old]);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    for (const secret of [old, current]) {
      expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'intent.confirmed' });
    }
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('the body carries the intent as it was at the change, and the change itself', () => {
    const intent = {
      id: 'pi_1',
      tenantId: 'acme',
      chainId: 1,
      from: null,
      to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      asset: 'native',
      amount: 5n,
      status: IntentStatus.held,
      version: 3,
      nonce: null,
      txHash: null,
      rawTx: null,
      blockNumber: null,
      reason: null,
      reasonCode: null,
      feePaid: null,
      deliveredAmount: null,
      idempotencyKey: null,
      createdAt: new Date('2026-12-01T00:00:00Z'),
      updatedAt: new Date('2026-12-01T00:00:01Z'),
    } satisfies Intent;
    const body = JSON.parse(
      eventBody(intent, {
        sequence: 3,
        previousStatus: IntentStatus.settling,
        at: new Date('2026-12-01T00:00:01Z'),
      }),
    );
    expect(body).toMatchObject({
      type: 'intent.held',
      timestamp: '2026-12-01T00:00:01.000Z',
      data: { sequence: 3, previousStatus: 'settling', intent: { id: 'pi_1', amount: '5' } },
    });
  });
});
