/**
 * `docpipe doctor [--fix]`: checks the database's invariants (../../load/doctor.ts), prints
 * one row per check or finding and a summary line, and exits 1 while a finding remains.
 * Without --fix it only reads (the database read-only, the spool without touching it); with
 * --fix it is a writer like export, makes the safe repairs, then checks again.
 */
import { jsonLine } from '../../core/neutralise.js';
import type { Argv, CommandModule } from 'yargs';
import { EXIT } from '../../core/errors.js';
import { Database, requireDatabaseFile, upgradeIfOlder } from '../../load/database.js';
import { countByStatus, diagnose, hasFindings, planRepairs, plural, type Finding } from '../../load/doctor.js';
import { applyRepairs, readDoctorFacts } from '../../load/doctor-io.js';
import { newRunId } from '../../load/runs.js';
import { Spool, spoolDirFor } from '../../spool/spool.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { loggerFor } from '../io.js';
import { renderRows, renderTable } from '../output/table.js';
import { readerOptions } from '../session.js';
import { createWorkspace } from '../../lib/session.js';

const DOCTOR_FORMATS = ['table', 'json'] as const;
type DoctorFormat = (typeof DOCTOR_FORMATS)[number];

const COLUMNS = ['check', 'status', 'detail'] as const;

function builder(yargs: Argv) {
  return commandHelp(
    yargs
      .option('fix', {
        type: 'boolean',
        default: false,
        describe: 'repair what is safe to repair (duplicate and orphan rows, crashed runs, the spool), then check again',
      })
      .option('format', { choices: DOCTOR_FORMATS, default: 'table' as DoctorFormat, describe: 'findings as a table or JSON lines' }),
    {
      examples: [
        ['doctor', 'check, read-only; exit 1 on a finding'],
        ['doctor --fix', 'repair what is safe, then check again'],
      ],
    },
  );
}

export function doctorCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'doctor',
    describe: "check the database's invariants (page grain, window bookkeeping, spool, crashed runs); --fix repairs what is safe",
    builder,
    handler: async (args) => {
      requireDatabaseFile(args.db);
      const now = ctx.io.clock.now();
      let report: Finding[];
      if (!args.fix) {
        // Read-only, beside any other reader; refuses a file that does not exist.
        const spool = new Spool(spoolDirFor(args.db));
        // The checks read this release's tables: an older schema is brought up to it first.
        await upgradeIfOlder(args.db, readerOptions(ctx, args));
        const facts = await Database.with(args.db, readerOptions(ctx, args), (db) => readDoctorFacts(db, spool));
        report = diagnose(facts, now);
      } else {
        const logger = loggerFor(ctx.io, args);
        // A writer like any other (the journal moves in with each write), but never one that creates the file.
        const runId = newRunId(now);
        const { store, spool } = createWorkspace(args, runId, logger, { mustExist: true });
        const before = diagnose(await store.read((db) => readDoctorFacts(db, spool)), now);
        const repairs = planRepairs(before);
        if (repairs.length === 0) {
          report = before;
        } else {
          const fixed = await applyRepairs(repairs, { store, spool, now, runId });
          // What remains is what a fresh check finds.
          report = [...fixed, ...diagnose(await store.read((db) => readDoctorFacts(db, spool)), now)];
        }
      }
      const counts = countByStatus(report);
      const exitCode = hasFindings(report) ? EXIT.failed : EXIT.ok;
      const rows = report.map(({ check, status, detail }) => ({ check, status, detail }));
      if (args.format === 'json') {
        ctx.io.stdout(renderRows('json', COLUMNS, rows));
        ctx.io.stdout(jsonLine({ event: 'summary', command: 'doctor', fix: args.fix, ...counts, exitCode }));
      } else {
        // Details unclipped (they name the window and what to do); the summary line below
        // replaces the table's row count.
        ctx.io.stdout(renderTable(COLUMNS, rows, Number.POSITIVE_INFINITY).replace(/\(\d+ rows?\)\n$/, ''));
        const parts = [plural(counts.finding, 'finding'), `${counts.fixed} fixed`, `${counts.info} info`];
        ctx.io.stdout(`doctor: ${parts.join(', ')}${exitCode === EXIT.ok ? ': the database is sound' : ''}\n`);
      }
      ctx.exitCode = exitCode;
    },
  });
}
