/** `openDatabase`: the docpipe database for code that reads (or adds to) it. */
import { checkDbPath, Database, DEFAULT_DB_PATH, type OpenOptions } from '../load/database.js';
import { UsageError } from '../core/errors.js';
import { checkCallbacks, checkLockTimeoutMs, checkOptionNames, checkSignal, optionNames, positive, yesNo } from './common.js';

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
  for (const name of ['readOnly', 'mustExist', 'checkpointEachCommit', 'schemaInBackground'] as const) yesNo(name, options[name]);
  if (options.threads !== undefined) positive('threads', options.threads, true);
  // DuckDB reads the size itself ('512MB', '8G', 'none'); what is not text would fail inside.
  const limit: unknown = options.memoryLimit;
  if (limit !== undefined && (typeof limit !== 'string' || limit.trim() === '')) {
    throw new UsageError(`invalid memoryLimit '${String(limit)}': expected a size such as '512MB' or '2GiB'`);
  }
  checkSignal(options.signal);
  checkCallbacks(options);
  return Database.open(checkDbPath(path, 'path'), options);
}
