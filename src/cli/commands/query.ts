import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { InterruptedError, UsageError } from '../../core/errors.js';
import { Database, databaseReason, requireDatabaseFile, userSqlError } from '../../load/database.js';
import { needsUpgrade, readSchemaVersion } from '../../load/migrations.js';
import { readerOptions } from '../session.js';
import { decodeUtf8 } from '../../core/text-file.js';

/** DuckDB's refusal of a write on a read-only database. */
const READ_ONLY_REFUSAL = /read-only mode|read only mode|attached in read-only/i;
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { OUTPUT_FORMATS, renderRows, type OutputFormat } from '../output/table.js';

function builder(yargs: Argv) {
  return commandHelp(
    yargs
      .positional('sql', { type: 'string', describe: 'the SQL to run' })
      .option('file', { type: 'string', describe: 'read the SQL from this file (e.g. sql/queries/top-pages.sql)' })
      .option('format', { choices: OUTPUT_FORMATS, default: 'table' as OutputFormat, describe: 'output format' })
      .option('write', {
        type: 'boolean',
        default: false,
        describe: 'open the database read-write (by default it is opened read-only, beside any other reader)',
      }),
    {
      examples: [
        ['query "SELECT * FROM daily_site ORDER BY day DESC LIMIT 7"', 'the last week, site-wide'],
        ['query --file sql/queries/top-pages.sql --format csv', 'a ready-made query, as CSV'],
        ['query "SELECT * FROM window_status" --db data/demo.duckdb', 'on another database file'],
      ],
      epilogue: 'Tables: visitor_totals, page_visitors, view_totals, page_views, agent_jobs, runs, request_log; views:\ndaily_site, daily_page_visitors, window_status, flagged_rows. The database file must exist.',
    },
  );
}

/**
 * The SQL argument of a command: its positional, or the one argument after `--` (SQL that
 * begins with a comment goes there: sqlCommentsLast). `words`: the command's own words
 * (`query`; `jobs from-query`).
 */
export function sqlArgument(args: { sql?: string | undefined; _: readonly (string | number)[] }, words: number): string | undefined {
  const rest = args._.slice(words).map(String);
  const all = args.sql === undefined ? rest : [args.sql, ...rest];
  if (all.length > 1) throw new UsageError(`give the SQL as one argument (quote it): found ${all.length}`);
  return all[0];
}

export function readSql(sql: string | undefined, file: string | undefined): { text: string; label: string } {
  if (sql && file) throw new UsageError('give either SQL or --file, not both');
  if (file) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new UsageError(`cannot read --file '${file}'`, { cause: error });
    }
    // Strict UTF-8, as prompt files: a UTF-16 file would reach DuckDB's parser as garbage.
    return { text: decodeUtf8(file, bytes), label: file };
  }
  if (!sql?.trim()) throw new UsageError('no SQL: pass it as an argument or with --file');
  return { text: sql, label: 'query' };
}

export function queryCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'query [sql]',
    describe: 'run SQL on the database (read-only unless --write) and print each statement\'s result',
    builder,
    handler: async (args) => {
      requireDatabaseFile(args.db);
      const { text, label } = readSql(sqlArgument(args, 1), args.file);
      const readOnly = !args.write;
      // Even with --write: a mistyped --db must not create an empty database.
      const results = await Database.with(args.db, { ...readerOptions(ctx, args, readOnly), mustExist: true }, async (db) => {
        try {
          return await db.query(text, ctx.io.signal ? { signal: ctx.io.signal } : {});
        } catch (error) {
          if (error instanceof InterruptedError) throw error;
          if (readOnly && READ_ONLY_REFUSAL.test(databaseReason(error))) {
            throw new UsageError(`${label}: the database is opened read-only; pass --write to change it`, { cause: error });
          }
          const sqlError = userSqlError(label, error);
          const missing = /does not exist|not found/i.test(sqlError.message);
          // A file with none of docpipe's tables: made, and its first write stopped (a kill, a
          // full disk) before it made them.
          if (missing && (await readSchemaVersion(db)) === 0) {
            throw new UsageError(
              `${sqlError.message} (this database holds none of docpipe's tables yet: the run that made the file stopped before ` +
                'it made them; a docpipe command that writes, e.g. an export, makes them)',
              { cause: error },
            );
          }
          // A name this release's views or macros have, missing from an older file read as it is.
          if (missing && (await needsUpgrade(db))) {
            throw new UsageError(
              `${sqlError.message} (this database was written by an older docpipe: this release's views and macros appear ` +
                'once a docpipe command that writes has opened it, which upgrades it)',
              { cause: error },
            );
          }
          throw sqlError;
        }
      });
      if (results.length === 0) throw new UsageError(`${label}: no SQL statement in it`);
      // Each statement's result in turn, like the duckdb shell; a statement without a result
      // set (CREATE, SET) prints nothing.
      const shown = results.filter((r) => r.isResultSet);
      ctx.io.stdout(shown.map((r) => renderRows(args.format, r.columns, r.rows)).join(args.format === 'json' ? '' : '\n'));
    },
  });
}
