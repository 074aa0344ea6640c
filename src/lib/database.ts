/** `openDatabase`: the docpipe database for code that reads (or adds to) it. */
import { checkDbPath, Database, DEFAULT_DB_PATH, type OpenOptions } from '../load/database.js';
import { checkLockTimeoutMs, checkOptionNames, optionNames } from './common.js';

const OPEN_OPTION_NAMES = optionNames<OpenOptions>()([
  'readOnly', 'mustExist', 'threads', 'memoryLimit', 'checkpointEachCommit', 'lockTimeoutMs', 'onLockWait', 'signal', 'schemaInBackground',
]);

/**
 * Opens a docpipe database (created and migrated to this release's schema unless
 * `readOnly`). DuckDB lets one process write a file and readers need it free, so close the
 * handle as soon as the work is done: `await db.close()` (or use `Database.with`).
 *
 * @param path @default 'data/docpipe.duckdb'
 * @param options `readOnly` opens beside other readers (a missing file is an error);
 *   `lockTimeoutMs` waits that long for a file another process holds. @default read-write
 */
export async function openDatabase(path: string = DEFAULT_DB_PATH, options: OpenOptions = {}): Promise<Database> {
  checkOptionNames(options, OPEN_OPTION_NAMES, { entry: 'openDatabase' });
  if (options.lockTimeoutMs !== undefined) checkLockTimeoutMs(options.lockTimeoutMs);
  return Database.open(checkDbPath(path, 'path'), options);
}
