import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Endpoint secrets encrypted at rest: AES-256-GCM under the operator's key (WEBHOOK_SECRETS_KEY),
 * each with a fresh nonce, stored as `v1:<nonce>:<tag>:<ciphertext>` (base64). A database dump
 * alone signs nothing.
 */
export interface SecretBox {
  seal(secret: string): string;
  open(sealed: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the webhook secrets key must be 32 bytes');
  return {
    seal(secret) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return ['v1', nonce, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
        .join(':');
    },
    open(sealed) {
      const [version, nonce, tag, ciphertext] = sealed.split(':');
      if (version !== 'v1' || !nonce || !tag || !ciphertext) {
        throw new Error('not a sealed webhook secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, 'base64')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/** A new endpoint secret in the Standard Webhooks form: `whsec_` and 32 random bytes, base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
