/**
 * `docpipe dump --out DIR`: the analytics tables and the job ledger as hive-partitioned files
 * (`DIR/<table>/project_id=<id>/year=<yyyy>/month=<m>/`), zstd Parquet by default, for
 * engines beyond one machine. Reads the database read-only; a re-run replaces the partitions
 * it covers. `--project` and a range (`--last`, `--from/--to`) narrow what is rewritten.
 */
import { jsonLine } from '../../core/neutralise.js';
import type { Argv, CommandModule } from 'yargs';
import { DUMP_FORMATS, monthSpan, type DumpFilter, type DumpFormat } from '../../dump/plan-dump.js';
import { runDump } from '../../dump/run-dump.js';
import { resolveRange } from '../../extract/relative-range.js';
import { planWindows } from '../../extract/windows.js';
import { newRunId } from '../../load/runs.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { loggerFor } from '../io.js';
import { renderTable } from '../output/table.js';
import { withCurrentSchema } from '../session.js';
import { checkOutPath, writingOut } from '../out-path.js';
import { projectsOf } from '../api-key.js';

function builder(yargs: Argv) {
  return commandHelp(
    yargs
      .option('out', { type: 'string', demandOption: true, describe: 'folder of the lake (created if missing)' })
      .option('format', { choices: DUMP_FORMATS, default: 'parquet' as DumpFormat, describe: 'zstd Parquet, or CSV with a header' })
      .option('last', { type: 'string', describe: 'only the months that overlap the last 7d, 4w or 3m (rewritten whole)' })
      .option('from', { type: 'string', describe: 'only the months from this day on, YYYY-MM-DD (with --to)' })
      .option('to', { type: 'string', describe: 'only the months before this day (exclusive; with --from)' }),
    {
      examples: [
        ['dump --out lake/', 'every table, as zstd Parquet under lake/<table>/project_id=/year=/month='],
        ['dump --out lake/ --last 7d', 'a nightly refresh: rewrites only the months the last 7 days overlap'],
        ['dump --out csv/ --format csv --project docs', "one project's rows as CSV with a header"],
      ],
    },
  );
}

export function dumpCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'dump',
    describe: 'write the analytics tables and agent_jobs as hive-partitioned Parquet (or CSV), for DuckDB, Spark, Trino, BigQuery',
    builder,
    handler: async (args) => {
      const out = checkOutPath(args.out, 'folder');
      const ranged = args.last !== undefined || args.from !== undefined || args.to !== undefined;
      const range = ranged ? resolveRange(args, 'day', ctx.io.clock.now()) : undefined;
      if (range) planWindows(range.from, range.to, 'range'); // checks the dates
      const filter: DumpFilter = { projects: projectsOf(args), ...(range ? { range } : {}) };
      const logger = loggerFor(ctx.io, args);
      if (range) {
        const months = monthSpan(range);
        logger.info('range', { ...(range.last ? { last: range.last } : {}), from: range.from, to: range.to, months_from: months.from, months_to: months.to });
      }
      const tables = await writingOut(args.out, () =>
        withCurrentSchema(ctx, args, (db) => runDump(db, { out, format: args.format, filter, runId: newRunId(ctx.io.clock.now()) })),
      );
      const scope = {
        out,
        format: args.format,
        projects: filter.projects.length > 0 ? filter.projects : 'all',
        ...(range ? { from: range.from, to: range.to, ...(range.last ? { last: range.last } : {}) } : {}),
      };
      if (logger.format === 'json') {
        ctx.io.stdout(jsonLine({ event: 'summary', command: 'dump', ...scope, tables }));
      } else {
        const earliest = tables.map((t) => t.monthsFrom).filter((m): m is string => m !== undefined).sort()[0];
        const widened = range && earliest !== undefined && earliest < monthSpan(range).from ? `, and from ${earliest} where windows overlapping it began` : '';
        const what = range ? ` (months overlapping ${range.from} .. ${range.to}${range.last ? `, --last ${range.last}` : ''}${widened})` : '';
        ctx.io.stdout(renderTable(['table', 'rows', 'partitions'], tables.map((t) => ({ ...t }))) + `written to ${out}${what}\n`);
      }
    },
  });
}
