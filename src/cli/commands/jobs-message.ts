/** `docpipe jobs message`: follow-up messages to agent jobs, one or a batch file, each sent once. */
import { jsonLine } from '../../core/neutralise.js';
import { existsSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { UsageError } from '../../core/errors.js';
import { JobLedger } from '../../jobs/ledger.js';
import { readMessageFile, resolveMessages, type MessageRequest } from '../../jobs/message-file.js';
import { decideMessage, MessageLedger, type MessageRow } from '../../jobs/message-ledger.js';
import type { MessageEvent } from '../../jobs/run-messages.js';
import { followOptions } from './jobs.js';
import { planMessages, sendMessages } from '../../lib/messages.js';
import { upgradeIfOlder } from '../../load/database.js';
import { newRunId } from '../../load/runs.js';
import { Store } from '../../load/store.js';
import { spoolDirFor } from '../../spool/spool.js';
import { readerOptions } from '../session.js';
import { apiKeyIfGiven, requireProjects, resolveApiKey } from '../api-key.js';
import { commonOf } from '../common-options.js';
import { refuseKeyInPrompts, requireKeptDb } from '../../lib/common.js';
import { defineCommand, type CliContext } from '../context.js';
import { commandHelp } from '../help.js';
import { loggerFor } from '../io.js';
import { renderRows } from '../output/table.js';
import { countsLine, stopLine } from '../output/batch-summary.js';

function builder(yargs: Argv) {
  const withFile = yargs
      .positional('job', { type: 'string', describe: "the job id, or its prompt's key (the key `docpipe jobs list` shows)" })
      .positional('text', { type: 'string', describe: 'the follow-up instruction' })
      .option('file', { type: 'string', describe: 'a .jsonl file of {"jobId"|"promptKey", "prompt", "id"?} lines' });
  return commandHelp(
    followOptions(withFile)
      .option('dry-run', { type: 'boolean', default: false, describe: 'check the messages and list what would be sent' })
      .option('resubmit-unknown', { type: 'boolean', default: false, describe: 'send again messages whose outcome is unknown' }),
    {
      examples: [
        ['jobs message job_0042 "Also update the changelog" --project docs', 'a follow-up to one job, followed to its end'],
        ['jobs message --file followups.jsonl --project docs --dry-run', 'what a batch of messages would do, no request made'],
      ],
    },
  );
}

function shorten(text: string, width = 48): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function record(row: MessageRow): Record<string, unknown> {
  return {
    message_key: row.messageKey,
    job_id: row.jobId,
    prompt_key: row.promptKey,
    prompt: row.prompt,
    status: row.status,
    status_after: row.statusAfter,
    job_status: row.jobStatus,
    pr_link: row.prLink,
    sent_at: row.sentAt,
    error: row.error,
  };
}

export function messageCommand(ctx: CliContext): CommandModule {
  return defineCommand({
    command: 'message [job] [text]',
    describe: 'send a follow-up message to a job (or a batch with --file) and follow it again to its end',
    builder,
    handler: async (args) => {
      const { concurrency, timeout, 'poll-interval': pollInterval, 'jobs-per-hour': jobsPerHour } = args;
      if (!args['dry-run']) requireKeptDb(args.db, '--db');
      const projects = requireProjects(args);
      if (projects.length > 1) throw new UsageError(`jobs take one --project, got ${projects.length}: ${projects.join(', ')}`);
      const projectId = projects[0] as string;
      if (args.file && (args.job || args.text)) throw new UsageError('give either JOB_ID TEXT or --file, not both');
      let requests: MessageRequest[];
      let source: string;
      if (args.file) {
        requests = await readMessageFile(args.file);
        source = args.file;
      } else {
        if (!args.job || !args.text?.trim()) throw new UsageError('name a job and the message: docpipe jobs message JOB_ID TEXT (or --file FILE.jsonl)');
        requests = [{ line: 1, jobId: args.job.trim(), prompt: args.text.replace(/\r\n/g, '\n').trim() }];
        source = 'command line';
      }
      const logger = loggerFor(ctx.io, args);
      const apiKey = args['dry-run'] ? '' : resolveApiKey(args);

      if (args['dry-run']) {
        // A message that holds the key is refused (without being shown), as the run refuses it.
        refuseKeyInPrompts(requests, apiKeyIfGiven(args), args.file ?? 'messages');
        // Read-only, as the dry run of jobs submit: a database that does not exist is not made.
        const runId = newRunId(ctx.io.clock.now());
        const exists = existsSync(args.db);
        if (exists) await upgradeIfOlder(args.db, readerOptions(ctx, args));
        const store = new Store(args.db, readerOptions(ctx, args));
        const { entries, warnings } = exists ? await planMessages(new JobLedger(store, runId), projectId, source, requests) : resolveMessages(source, requests, []);
        for (const warning of warnings) logger.warn('messages', { warning });
        const ledger = new MessageLedger(store, runId, spoolDirFor(args.db));
        // Answers kept in the spool count as the run will count them: it records them first.
        const kept = ledger.keptAnswers(projectId);
        const plan: Record<string, unknown>[] = [];
        for (const entry of entries) {
          const row = exists ? await ledger.getWithKept(projectId, entry.key, kept) : undefined;
          // The run's own decision (decideMessage): a POST cut off mid-flight is unknown.
          const decision = decideMessage(entry, row, args['resubmit-unknown']);
          const action = {
            'reused-id': 'skip (id used before)',
            taken: 'taken',
            done: 'done',
            'skip-unknown': 'skip (unknown)',
            send: decision.status === 'unknown' ? 'send again' : 'send',
            follow: 'follow',
          }[decision.action];
          plan.push({ line: entry.line, job_id: entry.jobId, key: entry.key, action, status: row?.status ?? null, prompt: shorten(entry.prompt) });
        }
        ctx.io.stdout(renderRows('table', ['line', 'job_id', 'key', 'action', 'status', 'prompt'], plan));
        const toSend = plan.filter((p) => String(p.action).startsWith('send')).length;
        ctx.io.stdout(`dry run: ${entries.length} messages from ${source}, ${toSend} would be sent; no request made\n`);
        return;
      }

      const onEvent = (event: MessageEvent): void => {
        if (event.kind === 'status' && event.status === 'active') return logger.debug('job polled', { ...event });
        if (event.kind === 'warning') return logger.warn('message warning', { ...event });
        logger.info(`message ${event.kind}`, { ...event });
      };
      const result = await sendMessages({
        ...commonOf(ctx, args, apiKey, logger),
        project: projectId,
        messages: args.file ?? requests.map((r) => ({ jobId: r.jobId as string, prompt: r.prompt })),
        source,
        concurrency,
        pollIntervalMs: pollInterval * 1000,
        timeoutMs: timeout * 1000,
        jobsPerHour,
        resubmitUnknown: args['resubmit-unknown'],
        onEvent,
      });
      const counts = countsLine(result.counts);
      const stopped = stopLine(result, 'messages not yet sent stay pending');
      if (logger.format === 'json') {
        ctx.io.stdout(
          jsonLine({ event: 'summary', command: 'jobs message', runId: result.runId, total: result.total, sent: result.sent, taken: result.taken, counts: result.counts, stopped: result.stopped, message: result.stopMessage, messages: result.rows.map(record) }),
        );
      } else {
        const table = result.rows.map((r) => ({ job_id: r.jobId, prompt: shorten(r.prompt), status: r.status, job_status: r.jobStatus, pr_link: r.prLink ?? (r.error ? `(${shorten(r.error, 40)})` : '') }));
        ctx.io.stdout(renderRows('table', ['job_id', 'prompt', 'status', 'job_status', 'pr_link'], table));
        const taken = result.taken > 0 ? ` (${result.taken} taken by another run of the same messages)` : '';
        ctx.io.stdout(`${result.total} messages, ${result.sent} sent this run${taken}: ${counts}${stopped}\n`);
      }
      ctx.exitCode = result.exitCode;
    },
  });
}
