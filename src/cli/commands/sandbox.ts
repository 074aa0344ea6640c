import type { Argv, CommandModule } from 'yargs';
import { startSandbox, parseFaultSpec, SANDBOX_API_KEY, type FaultSpec } from '../../sandbox/server.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { numberOption } from '../options.js';
import { loggerFor } from '../io.js';

function builder(yargs: Argv) {
  return commandHelp(
    yargs
      .option('port', numberOption('port', { integer: true, min: 0, max: 65_535 }, { default: 8787, describe: 'port on 127.0.0.1 (0 picks a free one)' }))
      .option('seed', numberOption('seed', {}, { default: 42, describe: 'seed for the simulated data' }))
      .option('paths', numberOption('paths', { integer: true, min: 1 }, { describe: 'pages per project [default: 300]' }))
      .option('min-daily-visitors', numberOption('min-daily-visitors', { integer: true, min: 0 }, { describe: 'floor of daily visitors per page [default: 0]' }))
      .option('rate-limit', {
        type: 'boolean',
        default: true,
        describe: "enforce the API's limits: 100 analytics requests an hour, 100 job submissions an hour per project (--no-rate-limit: none, for demos and benchmarks)",
      })
      .option('fault', { type: 'string', array: true, describe: 'inject a fault, e.g. rate-limit:times=3:retryAfter=2 (body= or patch= last: body:status=200:body=TEXT, patch:patch=JSON)' }),
    {
      examples: [
        ['sandbox', 'serve the simulation on http://127.0.0.1:8787'],
        ['sandbox --port 0 --no-rate-limit', 'on a free port, without the hourly limits'],
        ['sandbox --fault server-error:times=2 --fault drop', 'answer 500 twice, then drop a connection'],
      ],
      epilogue: [
        `The sandbox accepts one API key: ${SANDBOX_API_KEY}. Point docpipe at it with`,
        `  export DOCPIPE_BASE_URL=http://127.0.0.1:8787 DOCPIPE_API_KEY=${SANDBOX_API_KEY} DOCPIPE_PROJECT=docs`,
        'Any project id works. The first line on stdout is the URL.',
      ].join('\n'),
    },
  );
}

export function sandboxCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'sandbox',
    describe: 'serve a local simulation of the API on 127.0.0.1 (prints the key it accepts)',
    builder,
    handler: async (args) => {
      const faults: FaultSpec[] = (args.fault ?? []).map((f) => parseFaultSpec(f));
      const site = {
        ...(args.paths === undefined ? {} : { paths: args.paths }),
        ...(args['min-daily-visitors'] === undefined ? {} : { minDailyVisitors: args['min-daily-visitors'] }),
      };
      // A long-running server: no log of every request kept in memory.
      const sandbox = await startSandbox({ port: args.port, seed: args.seed, site, faults, rateLimits: args['rate-limit'], recordRequests: false });
      // The first stdout line is the URL, so scripts can start it on port 0 and read it back;
      // the second is the key it accepts (a fixed, public test key, not a secret).
      ctx.io.stdout(`${sandbox.url}\n`);
      ctx.io.stdout(`api key: ${sandbox.apiKey}\n`);
      const limits = args['rate-limit']
        ? 'rate limits on: 100 analytics requests an hour, 100 job submissions an hour per project (--no-rate-limit to lift them)'
        : 'rate limits off';
      const tryIt = `DOCPIPE_BASE_URL=${sandbox.url} DOCPIPE_API_KEY=${sandbox.apiKey} docpipe export visitors --project docs --from <day> --to <day>`;
      const logger = loggerFor(ctx.io, args);
      if (logger.format === 'json') logger.info('sandbox listening', { url: sandbox.url, rate_limits: limits, try: tryIt, detail: 'Ctrl-C stops it' });
      else ctx.io.stderr(`sandbox listening on ${sandbox.url}; ${limits}\ntry: ${tryIt}\nCtrl-C stops it\n`);
      await new Promise<void>((resolve) => {
        if (ctx.io.signal?.aborted) resolve();
        ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      await sandbox.close();
    },
  });
}
