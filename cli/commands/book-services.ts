/**
 * The services the operator's commands call straight on a relayer's books. Loaded only when such
 * a command runs (cli/commands/books.ts): they bring the database drivers, which the commands
 * that call the API never need.
 */
export { baseUnitsOfBody, depositAsset, servedChain } from '../../service/assets';
export { createApiKey, listKeys, revokeKey, rotateApiKey } from '../../service/api-keys';
export {
  missingSqliteFile,
  setUniqueReferences,
  setUpTenant,
  weighTenant,
  withBooks,
} from '../../service/tenants';
