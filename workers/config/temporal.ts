import { z } from 'zod';
import { onOff, optional, setting } from './parsers';

const path = optional(z.string().min(1));

/**
 * How the process reaches Temporal. Read through the SDK's envconfig (temporal-profile.ts): a
 * profile of the TOML file the Temporal CLI reads, then these variables over it, so one profile
 * serves the relayer and the CLI. Certificates and keys by path; their contents never echoed.
 */
export const temporalSettings = {
  temporalAddress: setting({
    env: 'TEMPORAL_ADDRESS',
    fallback: '',
    doc: "Temporal frontend, host:port (over the profile's; localhost:7233 if neither says)",
    parse: optional(z.string().regex(/^[^:\s]+:\d+$/, { error: 'must be host:port' })),
  }),
  temporalNamespace: setting({
    env: 'TEMPORAL_NAMESPACE',
    fallback: '',
    doc: "Temporal namespace (over the profile's; default if neither says)",
    parse: optional(z.string().min(1)),
  }),
  temporalProfile: setting({
    env: 'TEMPORAL_PROFILE',
    fallback: '',
    doc: 'The profile of the Temporal config file to use (default: `default`)',
    parse: optional(z.string().min(1)),
  }),
  temporalConfigFile: setting({
    env: 'TEMPORAL_CONFIG_FILE',
    fallback: '',
    doc: "The Temporal config file (TOML, the CLI's; default ~/.config/temporalio/temporal.toml if it exists)",
    parse: path,
  }),
  temporalApiKey: setting({
    env: 'TEMPORAL_API_KEY',
    fallback: '',
    doc: 'An API key for Temporal (Temporal Cloud): TLS is then on unless TEMPORAL_TLS=false',
    secret: true,
    parse: optional(z.string().min(1)),
  }),
  temporalTls: setting({
    env: 'TEMPORAL_TLS',
    fallback: '',
    doc: 'TLS to Temporal on or off (on by default with an API key or any TEMPORAL_TLS_* file)',
    parse: optional(onOff),
  }),
  temporalTlsClientCertPath: setting({
    env: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
    fallback: '',
    doc: "mTLS: the client certificate's file (PEM), with TEMPORAL_TLS_CLIENT_KEY_PATH",
    parse: path,
  }),
  temporalTlsClientKeyPath: setting({
    env: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
    fallback: '',
    doc: "mTLS: the client certificate's private key file (PEM)",
    parse: path,
  }),
  temporalTlsServerCaCertPath: setting({
    env: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
    fallback: '',
    doc: "The CA that signed the server's certificate (PEM), when not a public one",
    parse: path,
  }),
  temporalTlsServerName: setting({
    env: 'TEMPORAL_TLS_SERVER_NAME',
    fallback: '',
    doc: "The name the server's certificate must carry, when not the address's host",
    parse: optional(z.string().min(1)),
  }),
};
