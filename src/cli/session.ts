/** How the CLI's read commands open the database: beside other readers, after an upgrade when needed. */
import { Database, requireDatabaseFile, upgradeIfOlder, type OpenOptions } from '../load/database.js';
import { loggerFor, type CliIo, type GlobalArgs } from './io.js';

/** How a read-only command opens the database: beside other readers, waiting for a writer. */
export function readerOptions(
  ctx: { io: CliIo },
  args: Pick<GlobalArgs, 'logFormat' | 'verbose' | 'db' | 'lockTimeout'>,
  /** False for a command that writes when asked to (`query --write`): it waits for readers too. */
  readOnly = true,
): OpenOptions {
  const detail = readOnly ? 'waiting for a write to finish' : 'waiting for it to close the file';
  return {
    readOnly,
    lockTimeoutMs: args.lockTimeout * 1000,
    onLockWait: (holder) => loggerFor(ctx.io, args).info('database busy', { db: args.db, holder, detail }),
    // Ctrl-C (SIGTERM, SIGHUP) ends the wait at once, as it does a writer's: exit 130.
    ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
  };
}

/**
 * Reads the database read-only, as `readerOptions` does, after bringing an older schema or
 * older views up to this release's (a short write, the first time only): commands that read
 * this release's views (report, dump) then work on a database no writer has opened since an
 * upgrade.
 */
export async function withCurrentSchema<T>(
  ctx: { io: CliIo },
  args: Pick<GlobalArgs, 'logFormat' | 'verbose' | 'db' | 'lockTimeout'>,
  work: (db: Database) => Promise<T>,
): Promise<T> {
  requireDatabaseFile(args.db);
  const reader = readerOptions(ctx, args);
  await upgradeIfOlder(args.db, reader);
  return Database.with(args.db, reader, work);
}

