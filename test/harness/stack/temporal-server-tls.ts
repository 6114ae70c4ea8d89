import type { TLSConfig } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import type { TestCertificates } from './test-certificates';

// The cluster's Temporal server with mTLS on its frontend (startTemporalServer's `tls`).

/** The server's TLS: mTLS on the frontend; its system worker and services reach it with a client certificate. */
export function frontendTls(certificates: Pick<TestCertificates, 'ca' | 'server' | 'client'>) {
  const toFrontend = { serverName: 'localhost', rootCaFiles: [certificates.ca] };
  return {
    frontend: {
      server: {
        certFile: certificates.server.cert,
        keyFile: certificates.server.key,
        requireClientAuth: true,
        clientCaFiles: [certificates.ca],
      },
      client: toFrontend,
    },
    systemWorker: {
      certFile: certificates.client.cert,
      keyFile: certificates.client.key,
      client: toFrontend,
    },
  };
}

/** How a client reaches that frontend: the client certificate, the CA, the server's name. */
export const clientTls = (certificates: Pick<TestCertificates, 'ca' | 'client'>): TLSConfig => ({
  serverNameOverride: 'localhost',
  serverRootCACertificate: readFileSync(certificates.ca),
  clientCertPair: {
    crt: readFileSync(certificates.client.cert),
    key: readFileSync(certificates.client.key),
  },
});
