/** `docpipe jobs from-query`: one prompt per row of a SQL query, submitted like `jobs submit`. */
import type { Argv, CommandModule } from 'yargs';
import { batchEndedBeforeStart, emptyBatch, promptEntries } from '../../lib/jobs.js';
import { stopBeforeStart } from '../../lib/common.js';
import { newRunId } from '../../load/runs.js';
import { promptsFromQuery } from '../../lib/from-query.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { requireProjects, resolveApiKey } from '../api-key.js';
import { loggerFor } from '../io.js';
import { readSql, sqlArgument } from './query.js';
import { checkSubmitArgs, reportBatch, submitEntries, submitOptions } from './jobs.js';

function builder(yargs: Argv) {
  return commandHelp(
    submitOptions(
      yargs
        .positional('sql', { type: 'string', describe: 'the SQL whose rows become prompts' })
        .option('file', { type: 'string', describe: 'read the SQL from this file (e.g. sql/prompts/top-pages.sql)' })
        .option('template', {
          type: 'string',
          demandOption: true,
          describe: 'prompt text with {column} fields, e.g. "Improve {path}: {total} visitors last week"; {{ and }} are literal braces',
        }),
    ),
    {
      examples: [
        ['jobs from-query --file sql/prompts/top-pages.sql --template "Review {path} ({total} visitors)" --project docs', 'one prompt per top page of the newest complete day'],
        ['jobs from-query "SELECT path FROM latest_top_pages WHERE grain = \'week\'" --template "Review {path}" --project docs --dry-run', 'the prompts a query makes, no request made'],
      ],
    },
  );
}

export function fromQueryCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'from-query [sql]',
    describe: 'submit one prompt per row of a SQL query (a template fills in the columns)',
    builder,
    handler: async (args) => {
      checkSubmitArgs(args);
      const { text, label } = readSql(sqlArgument(args, 2), args.file);
      const logger = loggerFor(ctx.io, args);
      const project = requireProjects(args)[0]!;
      let found: Awaited<ReturnType<typeof promptsFromQuery>>;
      try {
        found = await promptsFromQuery({
          sql: text,
          template: args.template,
          db: args.db,
          lockTimeoutMs: args.lockTimeout * 1000,
          label,
          templateLabel: '--template',
          project,
          onLockWait: (holder) => logger.info('database busy', { db: args.db, holder, detail: 'waiting for a write to finish' }),
          ...(ctx.io.signal ? { signal: ctx.io.signal } : {}),
        });
      } catch (error) {
        // Held past the lock wait before the query could run (or stopped while it waited):
        // the batch ends as one stopped later does, with its summary (no prompt known, none
        // submitted).
        const stop = stopBeforeStart(error);
        if (stop === null || args['dry-run']) throw error;
        resolveApiKey(args); // a batch without a key is bad usage (exit 2), held file or not
        await reportBatch(ctx, args, 'jobs from-query', batchEndedBeforeStart(0, newRunId(ctx.io.clock.now()), stop), logger, false);
        return;
      }
      const { prompts, otherProjects } = found;
      if (otherProjects > 0) {
        logger.info('rows of other projects left out', { project, rows: otherProjects, detail: `the query's project_id column names other projects; their rows are not sent to ${project}` });
      }
      if (prompts.length === 0) {
        const said = otherProjects > 0 ? `the query returned no rows of project ${project}: nothing to submit` : 'the query returned no rows: nothing to submit';
        if (args['dry-run']) return void ctx.io.stdout(`${said}\n`);
        // A batch of nothing still ends with its summary (one JSON line under --log-format json),
        // and a --results file says so: an earlier run's outcomes are not left as this run's.
        logger.info('nothing to submit', { detail: said });
        await reportBatch(ctx, args, 'jobs from-query', emptyBatch(newRunId(ctx.io.clock.now())), logger);
        return;
      }
      const { entries, warnings } = promptEntries(prompts, label);
      for (const warning of warnings) logger.warn('query prompts', { warning });
      await submitEntries(ctx, args, { name: 'jobs from-query', entries, source: label, fullPrompts: true });
    },
  });
}
