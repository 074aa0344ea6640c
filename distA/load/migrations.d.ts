import type { Executor } from './database.js';
export interface Migration {
    version: number;
    name: string;
    file: string;
}
/** Pure: the migrations named by a folder listing, in order, checked to be 1, 2, 3, ... */
export declare function parseMigrationList(files: readonly string[]): Migration[];
export declare function listMigrations(): Migration[];
/** The schema version this release writes. */
export declare function currentSchemaVersion(): number;
/** 0 for an empty database, 1 for one written by 0.1.0, else what `schema_version` says. */
export declare function readSchemaVersion(db: Executor): Promise<number>;
/** For read-only opens: a newer schema is refused; an older one is read as it is. */
export declare function checkReadable(db: Executor): Promise<void>;
/**
 * Whether the schema and the views are this release's: a read-only open reads an older
 * database as it is, so a command that needs this release's views checks first.
 */
export declare function schemaIsCurrent(db: Executor): Promise<boolean>;
export interface MigrationResult {
    from: number;
    to: number;
}
/**
 * Brings the schema up to this release's version in one transaction, and (re)creates the
 * views when sql/views.sql changed since they were last applied. Cheap when there is nothing
 * to do: one statement reads the version and the views' checksum.
 */
export declare function migrate(db: Executor & {
    transaction<T>(work: (tx: Executor) => Promise<T>): Promise<T>;
}): Promise<MigrationResult>;
