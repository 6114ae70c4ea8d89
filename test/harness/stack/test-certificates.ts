import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA and the certificates it signed, as PEM files (keys unencrypted, mode 0600). */
export interface TestCertificates {
  dir: string;
  ca: string;
  /** For a server on loopback: its names are localhost and 127.0.0.1. */
  server: { cert: string; key: string };
  /** For a client (mTLS): CN relayer. */
  client: { cert: string; key: string };
  /** Another CA, which signed none of these: what a client trusting the wrong CA holds. */
  otherCa: string;
  remove(): void;
}

/**
 * A throwaway CA, a server and a client certificate made by OpenSSL (Debian's `openssl`), for
 * the test stack's servers over TLS. Valid a day: a test stack lives minutes.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'relayer-certs-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  // A P-256 key for `name`, unencrypted, and a request or a self-signed certificate for it.
  const newKey = (name: string) => [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    at(`${name}.key`),
  ];
  const newCa = (name: string) =>
    openssl(
      'req',
      '-x509',
      ...newKey(name),
      '-out',
      at(`${name}.pem`),
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
    );
  const signed = (name: string, subject: string, extensions: string) => {
    writeFileSync(at(`${name}.ext`), extensions);
    openssl('req', ...newKey(name), '-out', at(`${name}.csr`), '-subj', subject);
    const ca = ['-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial'];
    const out = ['-out', at(`${name}.pem`), '-days', '1', '-extfile', at(`${name}.ext`)];
    openssl('x509', '-req', '-in', at(`${name}.csr`), ...ca, ...out);
    return { cert: at(`${name}.pem`), key: at(`${name}.key`) };
  };
  newCa('ca');
  newCa('other-ca');
  const server = signed(
    'server',
    '/CN=localhost',
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  const client = signed('client', '/CN=relayer', 'extendedKeyUsage=clientAuth\n');
  return {
    dir,
    ca: at('ca.pem'),
    server,
    client,
    otherCa: at('other-ca.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
