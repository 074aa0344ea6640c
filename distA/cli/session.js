/** How the CLI's read commands open the database: beside other readers, after an upgrade when needed. */
import { Database, requireDatabaseFile } from '../load/database.js';
import { schemaIsCurrent } from '../load/migrations.js';
import { loggerFor } from './io.js';
/** How a read-only command opens the database: beside other readers, waiting for a writer. */
export function readerOptions(ctx, args) {
    return {
        readOnly: true,
        lockTimeoutMs: args.lockTimeout * 1000,
        onLockWait: (holder) => loggerFor(ctx.io, args).info('database busy', { db: args.db, holder, detail: 'waiting for a write to finish' }),
    };
}
/**
 * Reads the database read-only, as `readerOptions` does, after bringing an older schema or
 * older views up to this release's (a short write, the first time only): commands that read
 * this release's views (report, dump) then work on a database no writer has opened since an
 * upgrade.
 */
export async function withCurrentSchema(ctx, args, work) {
    requireDatabaseFile(args.db);
    const reader = readerOptions(ctx, args);
    if (!(await Database.with(args.db, reader, (db) => schemaIsCurrent(db)))) {
        const { readOnly: _readOnly, ...writer } = reader;
        await Database.with(args.db, { ...writer, mustExist: true }, () => Promise.resolve());
    }
    return Database.with(args.db, reader, work);
}
//# sourceMappingURL=session.js.map