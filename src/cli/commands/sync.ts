import type { Argv, CommandModule } from 'yargs';
import { readPipeline, syncPipeline } from '../../lib/analytics.js';
import { DEFAULT_PIPELINE_FILE } from '../pipeline-file.js';
import { projectsOf } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

const PIPELINE_HELP = [
  'The pipeline file (JSON):',
  '  { "projects": ["<projectId>"], "metrics": ["visitors", "views"], "start": "2026-01-01",',
  '    "window": "day", "lookbackDays": 2, "requestsPerHour": 100, "maxRequestsPerRun": 90 }',
  '  projects           project ids (required; --project or DOCPIPE_PROJECT replaces the list)',
  '  metrics            endpoints: visitors, views, feedback, feedback-by-page, searches, assistant,',
  '                     caller-stats (default visitors and views)',
  '  start              first day to keep, YYYY-MM-DD (required)',
  '  window | windows   day (default), week or month; or a list of them, coarsest loaded first',
  '  lookbackDays       a window is settled once fetched this many days after it ended (default 2)',
  '  requestsPerHour    the organization\'s analytics budget (default 100; --requests-per-hour wins)',
  '  maxRequestsPerRun  cap on requests in one run (--max-requests wins)',
  'Every closed window from start on that is not settled is loaded, most recent first. Exit 75: the',
  'run stopped early (the request budget, a failing API, a database held too long) and the next run',
  'carries on.',
].join('\n');

function builder(yargs: Argv) {
  return commandHelp(
    waitOptions(
      yargs.positional('pipeline', {
        type: 'string',
        default: DEFAULT_PIPELINE_FILE,
        describe: 'pipeline file',
      }),
    ),
    {
      examples: [
        ['sync', 'the nightly run of pipelines/nightly.json'],
        ['sync pipelines/nightly.json --project docs', 'the pipeline, for one project'],
        ['sync --wait --max-wait 6h', 'a backfill that sleeps for the hourly budget, up to 6 hours a wait'],
      ],
      epilogue: PIPELINE_HELP,
    },
  );
}

export function syncCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'sync [pipeline]',
    describe: 'nightly incremental export of every closed window not yet settled',
    builder,
    handler: async (args) => {
      const path = args.pipeline;
      // Read here only for the progress estimate; syncPipeline reads it again and logs its warnings.
      const config = readPipeline(path);
      const projects = projectsOf(args);
      const maxWaitMs = maxWaitMsOf(args);
      ctx.exitCode = await runAnalytics(ctx, args, args.requestsPerHour ?? config.requestsPerHour, (common) =>
        syncPipeline({
          ...common,
          pipeline: path,
          // Explicit flags (or DOCPIPE_* variables) win over the file.
          ...(projects.length > 0 ? { projects } : {}),
          ...(args.requestsPerHour === undefined ? {} : { requestsPerHour: args.requestsPerHour }),
          maxWaitMs,
        }),
      );
    },
  });
}
