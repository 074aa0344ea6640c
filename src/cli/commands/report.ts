/**
 * `docpipe report [--out FILE] [--last 30d | --from D --to D]`: reads the database (read-only),
 * renders the charts to SVG and writes one self-contained HTML page; prints its path.
 */
import { jsonLine } from '../../core/neutralise.js';
import { dirname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { resolveRange } from '../../extract/relative-range.js';
import { planWindows } from '../../extract/windows.js';
import { readReportData } from '../../report/report-data.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { loggerFor } from '../io.js';
import { withCurrentSchema } from '../session.js';
import { checkOutPath, checkPageOut, writingOut } from '../out-path.js';
import { projectsOf } from '../api-key.js';
import { writeFileAtomic } from '../../spool/spool.js';
import { makeFolders } from '../../core/files.js';

export const DEFAULT_REPORT_PATH = 'data/report.html';
const DEFAULT_LAST = '30d';

function builder(yargs: Argv) {
  return commandHelp(
    yargs
      .option('out', { type: 'string', default: DEFAULT_REPORT_PATH, describe: 'the HTML file to write' })
      .option('last', { type: 'string', describe: `the last 7d, 4w or 3m up to today (exclusive) [default: ${DEFAULT_LAST}]` })
      .option('from', { type: 'string', describe: 'first day, YYYY-MM-DD (UTC; with --to)' })
      .option('to', { type: 'string', describe: 'end day, exclusive (with --from)' }),
    {
      examples: [
        ['report', 'the last 30 days into data/report.html'],
        ['report --last 3m --out /srv/www/docs-report.html', 'three months, where a web server serves it'],
        ['report --from 2026-10-01 --to 2026-11-01 --project docs', "one project's October"],
      ],
    },
  );
}

export function reportCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'report',
    describe: 'write a self-contained HTML page with charts (visitors, AI share, top pages, views, weeks, jobs)',
    builder,
    handler: async (args) => {
      const out = checkOutPath(args.out, 'file');
      checkPageOut(out, args.out, args.db);
      const now = ctx.io.clock.now();
      const range = resolveRange(args, 'day', now, DEFAULT_LAST);
      planWindows(range.from, range.to, 'range'); // checks the dates
      const data = await withCurrentSchema(ctx, args, (db) =>
        readReportData(db, { projects: projectsOf(args), from: range.from, to: range.to, ...(range.last ? { last: range.last } : {}), nowMs: now }),
      );
      // Loaded here, not at start-up: the chart library is large, and every other command
      // (a cron sync, a reader's query) would pay for parsing it.
      const { renderReportHtml } = await import('../../report/render-html.js');
      const html = renderReportHtml(data);
      await writingOut(args.out, () => {
        makeFolders(dirname(out));
        // Whole or not at all: a reader (or a crash) never finds half a page.
        writeFileAtomic(out, html);
      });
      const logger = loggerFor(ctx.io, args);
      const summary = { path: out, from: range.from, to: range.to, ...(range.last ? { last: range.last } : {}), projects: data.projects.map((p) => p.projectId) };
      if (logger.format === 'json') ctx.io.stdout(jsonLine({ event: 'summary', command: 'report', ...summary }));
      else ctx.io.stdout(`report for ${range.from} .. ${range.to}${range.last ? ` (--last ${range.last})` : ''} written to ${out}\n`);
    },
  });
}
