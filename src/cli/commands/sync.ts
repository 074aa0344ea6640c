import type { Argv, CommandModule } from 'yargs';
import { readPipeline, syncPipeline } from '../../lib/analytics.js';
import { DEFAULT_PIPELINE_FILE } from '../pipeline-file.js';
import { projectsOf } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { maxWaitMsOf, runAnalytics, waitOptions } from '../run-analytics.js';

function builder(yargs: Argv) {
  return waitOptions(
    yargs.positional('pipeline', {
      type: 'string',
      default: DEFAULT_PIPELINE_FILE,
      describe: 'pipeline file',
    }),
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
