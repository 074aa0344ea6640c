import type { Argv, CommandModule } from 'yargs';
import { isEventStream } from '../../api/endpoints.js';
import { loggerFor } from '../io.js';
import { planSyncWindows, resolveSyncProjects } from '../../extract/pipeline-config.js';
import { DEFAULT_PIPELINE_FILE, readPipelineFile } from '../pipeline-file.js';
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
      const config = readPipelineFile(path, loggerFor(ctx.io, args));
      // Explicit flags (or DOCPIPE_* variables) win over the file.
      const projects = resolveSyncProjects(config, projectsOf(args), path);
      const now = ctx.io.clock.now();
      const aggregates = config.metrics.filter((m) => !isEventStream(m));
      const events = config.metrics.filter((m) => isEventStream(m));
      const tasks = config.grains.flatMap((grain) => {
        const windows = planSyncWindows(config, grain, now);
        return projects.flatMap((projectId) => aggregates.map((metric) => ({ metric, projectId, grain, windows })));
      });
      // Event streams are fetched one day window at a time, whatever grains the file keeps.
      if (events.length > 0) {
        const days = planSyncWindows(config, 'day', now);
        tasks.push(...projects.flatMap((projectId) => events.map((metric) => ({ metric, projectId, grain: 'day' as const, windows: days }))));
      }
      ctx.exitCode = await runAnalytics(ctx.io, args, {
        command: `sync ${path}`,
        tasks,
        refresh: false,
        lookbackDays: config.lookbackDays,
        perHour: args.requestsPerHour ?? config.requestsPerHour,
        maxWaitMs: maxWaitMsOf(args),
        maxRequests: args.maxRequests ?? config.maxRequestsPerRun,
        ...(ctx.http ? { http: ctx.http } : {}),
      });
    },
  });
}
