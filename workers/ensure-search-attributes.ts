import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { relayerSearchAttributes } from '../workflows/search-attributes';
import { ConfigError } from './config/load';

/** A client or a worker connection: both reach the operator service. */
type OperatorConnection = Pick<Connection, 'operatorService'>;
type SearchAttributeKeys = typeof relayerSearchAttributes;

const indexedValueType = (type: SearchAttributeKeys[number]['type']) =>
  temporal.api.enums.v1.IndexedValueType[`INDEXED_VALUE_TYPE_${type}`];

/** The CLI spells types in PascalCase: KEYWORD_LIST → KeywordList. */
const cliType = (type: string) =>
  type.toLowerCase().replace(/(^|_)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

/**
 * Workflows upsert these search attributes at every step; on a namespace that lacks one, every
 * workflow task would fail. So a worker registers them before it starts, or refuses to start with
 * the commands an operator can run (Temporal Cloud does not let workers register them).
 */
export async function ensureSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = relayerSearchAttributes.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await addSearchAttributes(connection, namespace, missing);
  } catch (error) {
    const commands = missing.map(
      (key) =>
        `temporal operator search-attribute create --namespace ${namespace} --name ${key.name} --type ${cliType(key.type)}`,
    );
    throw new ConfigError({
      problems: [...commands, `(registering them failed: ${(error as Error).message})`],
      heading: `search attributes missing on namespace ${namespace} and this worker may not create them; run`,
    });
  }
}

export async function addSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  keys: SearchAttributeKeys = relayerSearchAttributes,
): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(keys.map((key) => [key.name, indexedValueType(key.type)])),
  });
}
