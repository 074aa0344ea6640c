/** How the CLI's read commands open the database: beside other readers, after an upgrade when needed. */
import { Database, type OpenOptions } from '../load/database.js';
import { type CliIo, type GlobalArgs } from './io.js';
/** How a read-only command opens the database: beside other readers, waiting for a writer. */
export declare function readerOptions(ctx: {
    io: CliIo;
}, args: Pick<GlobalArgs, 'logFormat' | 'verbose' | 'db' | 'lockTimeout'>): OpenOptions;
/**
 * Reads the database read-only, as `readerOptions` does, after bringing an older schema or
 * older views up to this release's (a short write, the first time only): commands that read
 * this release's views (report, dump) then work on a database no writer has opened since an
 * upgrade.
 */
export declare function withCurrentSchema<T>(ctx: {
    io: CliIo;
}, args: Pick<GlobalArgs, 'logFormat' | 'verbose' | 'db' | 'lockTimeout'>, work: (db: Database) => Promise<T>): Promise<T>;
