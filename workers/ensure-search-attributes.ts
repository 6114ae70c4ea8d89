import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { relayerSearchAttributes } from '../workflows/search-attributes';

const indexedValueType = {
  KEYWORD: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
} as const;

/**
 * Workflows upsert these search attributes at every step; on a namespace that lacks one, every
 * workflow task would fail. So a worker registers them before it starts, or refuses to start with
 * the command an operator can run (Temporal Cloud does not let workers register them).
 */
export async function ensureSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = relayerSearchAttributes.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  try {
    await addSearchAttributes(connection, namespace, missing);
  } catch (error) {
    const commands = missing
      .map(
        (key) =>
          `temporal operator search-attribute create --namespace ${namespace} --name ${key.name} --type Keyword`,
      )
      .join('\n  ');
    throw new Error(
      `search attributes missing on namespace ${namespace}; create them with:\n  ${commands}`,
      {
        cause: error,
      },
    );
  }
}

export async function addSearchAttributes(
  connection: Connection,
  namespace: string,
  keys: typeof relayerSearchAttributes = relayerSearchAttributes,
): Promise<void> {
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(keys.map((key) => [key.name, indexedValueType[key.type]])),
  });
}
