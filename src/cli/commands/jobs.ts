import { accessSync, constants, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { TERMINAL_STATUSES } from '../../api/schemas.js';
import { closestWord } from '../../core/did-you-mean.js';
import { UsageError } from '../../core/errors.js';
import { isFinalStatus, JobLedger, LOCAL_STATUSES, type LedgerRow } from '../../jobs/ledger.js';
import { readPromptFile, type PromptEntry } from '../../jobs/prompt-files.js';
import type { BatchEvent } from '../../jobs/run-batch.js';
import { resolveCommon } from '../../lib/common.js';
import { runJobBatch } from '../../lib/jobs.js';
import { requireDatabaseFile } from '../../load/database.js';
import { Store } from '../../load/store.js';
import { newRunId } from '../../load/runs.js';
import { projectsOf, requireProjects, resolveApiKey } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { loggerFor, type GlobalArgs } from '../io.js';
import { commandHelp } from '../help.js';
import { numberOption } from '../options.js';
import { OUTPUT_FORMATS, renderCsv, renderJsonLines, renderRows, type OutputFormat } from '../output/table.js';
import { commonOf } from '../common-options.js';
import { fromQueryCommand } from './jobs-from-query.js';
import { messageCommand } from './jobs-message.js';
import { createWorkspace, readerOptions } from '../session.js';

const RESULT_COLUMNS = ['prompt_key', 'prompt', 'status', 'job_id', 'pr_link', 'error'] as const;

function shorten(text: string, width = 48): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

function resultRecord(row: LedgerRow): Record<string, unknown> {
  return { prompt_key: row.promptKey, prompt: row.prompt, status: row.status, job_id: row.jobId, pr_link: row.prLink, error: row.error };
}

function singleProject(projects: string[]): string {
  if (projects.length > 1) throw new UsageError(`jobs take one --project, got ${projects.length}: ${projects.join(', ')}`);
  return projects[0] as string;
}

/** The --results file is checked before the batch runs, not after an hour of jobs. */
function checkResultsPath(path: string): void {
  if (!['.jsonl', '.csv'].includes(extname(path).toLowerCase())) {
    throw new UsageError(`invalid --results '${path}': expected a .jsonl or .csv file`);
  }
  const folder = dirname(path);
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // missing
  }
  if (!isFolder) throw new UsageError(`invalid --results '${path}': folder '${folder}' does not exist`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new UsageError(`invalid --results '${path}': folder '${folder}' is not writable`);
  }
}

function writeResults(path: string, rows: readonly LedgerRow[]): void {
  const ext = extname(path).toLowerCase();
  const records = rows.map(resultRecord);
  const text = ext === '.csv' ? renderCsv(RESULT_COLUMNS, records) : renderJsonLines(records);
  // Write then rename, so a reader never sees half a file.
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

function submitBuilder(yargs: Argv) {
  return submitOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'prompts: .txt, .jsonl or .csv' }));
}

/** The options of `jobs submit`, which `jobs from-query` shares. */
export function submitOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('concurrency', numberOption('concurrency', { integer: true, min: 1 }, { default: 3, describe: 'jobs in flight at once' }))
    .option(
      'poll-interval',
      numberOption('poll-interval', { above: 0 }, { default: 5, describe: 'first poll interval in seconds (backs off to 60)' }),
    )
    .option('timeout', numberOption('timeout', { above: 0 }, { default: 3600, describe: 'seconds to follow a job before timed_out' }))
    .option(
      'jobs-per-hour',
      numberOption('jobs-per-hour', { integer: true, min: 1 }, {
        default: 100,
        describe: 'job submissions and follow-up messages per hour (the API limit per project)',
      }),
    )
    .option('dry-run', { type: 'boolean', default: false, describe: 'check the file and list what would be submitted' })
    .option('resubmit-unknown', { type: 'boolean', default: false, describe: 'submit again prompts whose outcome is unknown' })
    .option('results', { type: 'string', describe: 'write outcomes to this .jsonl or .csv file' });
}

async function submitHandler(ctx: CliContext, args: SubmitArgs & { file: string }): Promise<void> {
  checkSubmitArgs(args);
  const file = await readPromptFile(args.file);
  const logger = loggerFor(ctx.io, args);
  for (const warning of file.warnings) logger.warn('prompt file', { warning });
  await submitEntries(ctx, args, { name: 'jobs submit', entries: file.entries, source: args.file });
}

export type SubmitArgs = Awaited<ReturnType<typeof submitOptions>['argv']> & GlobalArgs;

/**
 * The checks of the options `jobs submit` and `jobs from-query` share, before anything is
 * read (the numbers are checked as they are parsed).
 */
export function checkSubmitArgs(args: SubmitArgs): void {
  if (args.results) checkResultsPath(args.results);
  singleProject(requireProjects(args));
}

/**
 * Submits (or with --dry-run, plans) a batch through the ledger and reports it: what `jobs
 * submit` and `jobs from-query` share. `fullPrompts` prints each prompt whole in a dry run.
 */
export async function submitEntries(
  ctx: CliContext,
  args: SubmitArgs,
  batch: { name: 'jobs submit' | 'jobs from-query'; entries: readonly PromptEntry[]; source: string; fullPrompts?: boolean },
): Promise<void> {
  const projectId = singleProject(requireProjects(args));
  const logger = loggerFor(ctx.io, args);
  // Check the key before touching the database, so a bad setup changes nothing.
  const apiKey = args['dry-run'] ? '' : resolveApiKey(args);

  if (args['dry-run']) {
    const runId = newRunId(ctx.io.clock.now());
    const workspace = createWorkspace(args, runId, logger);
    const ledger = new JobLedger(workspace.store, runId);
    const plan: Record<string, unknown>[] = [];
    for (const entry of batch.entries) {
      const row = await ledger.get(projectId, entry.key);
      const action = !row
        ? 'submit'
        : isFinalStatus(row.status)
          ? 'done'
          : row.status === 'unknown'
            ? args['resubmit-unknown'] ? 'submit again' : 'skip (unknown)'
            : row.jobId ? 'poll' : 'submit';
      plan.push({ line: entry.line, key: entry.key, action, status: row?.status ?? null, prompt: batch.fullPrompts ? entry.prompt : shorten(entry.prompt) });
    }
    if (batch.fullPrompts) ctx.io.stdout(renderPrompts(plan));
    else ctx.io.stdout(renderRows('table', ['line', 'key', 'action', 'status', 'prompt'], plan));
    const toSubmit = plan.filter((p) => String(p.action).startsWith('submit')).length;
    ctx.io.stdout(`dry run: ${batch.entries.length} prompts in ${batch.source}, ${toSubmit} would be submitted; no request made\n`);
    return;
  }

  const onEvent = (event: BatchEvent): void => {
    if (event.kind === 'status' && event.status === 'active') return logger.debug('job polled', { ...event });
    logger.info(`job ${event.kind}`, { ...event });
  };
  const summary = await runJobBatch(resolveCommon(commonOf(ctx, args, apiKey, logger)), {
    projectId,
    entries: batch.entries,
    source: batch.source,
    command: `${batch.name} ${batch.source}`,
    concurrency: args.concurrency,
    pollIntervalMs: args['poll-interval'] * 1000,
    timeoutMs: args.timeout * 1000,
    jobsPerHour: args['jobs-per-hour'],
    resubmitUnknown: args['resubmit-unknown'],
    onEvent,
  });
  const { runId } = summary;
  if (args.results) writeResults(args.results, summary.rows);
  const table = summary.rows.map((r) => ({ prompt: shorten(r.prompt), status: r.status, pr_link: r.prLink ?? (r.error ? `(${shorten(r.error, 40)})` : '') }));
  const counts = Object.entries(summary.counts).map(([k, v]) => `${v} ${k}`).join(', ');
  const stopped =
    summary.stopped === 'budget'
      ? `\nstopped submitting on the request budget (${summary.stopMessage ?? ''}); run again to continue`
      : summary.stopped === 'interrupted'
        ? '\ninterrupted; everything so far is saved, run again to resume'
        : summary.stopped === 'fatal'
          ? `\nstopped: ${summary.stopMessage ?? ''}`
          : '';
  if (logger.format === 'json') {
    ctx.io.stdout(JSON.stringify({ event: 'summary', command: batch.name, runId, total: summary.total, submitted: summary.submitted, counts: summary.counts, stopped: summary.stopped, jobs: summary.rows.map(resultRecord) }) + '\n');
  } else {
    ctx.io.stdout(renderRows('table', ['prompt', 'status', 'pr_link'], table));
    ctx.io.stdout(`${summary.total} prompts, ${summary.submitted} submitted this run: ${counts}${stopped}\n`);
  }
  ctx.exitCode = summary.exitCode;
}

/** Whole prompts, each under a line with its key and what a run would do with it. */
function renderPrompts(plan: readonly Record<string, unknown>[]): string {
  return plan
    .map((p) => `--- ${String(p.line)}: ${String(p.key)} (${String(p.action)}${p.status ? `, ${String(p.status)}` : ''})\n${String(p.prompt)}\n`)
    .join('');
}

/** The statuses a ledger row can have: the API's, then docpipe's own. */
const KNOWN_STATUSES: readonly string[] = ['active', ...TERMINAL_STATUSES, ...LOCAL_STATUSES];

function unknownStatusMessage(status: string, stored: readonly string[]): string {
  const valid = [...new Set([...KNOWN_STATUSES, ...stored])];
  const guess = closestWord(status, valid);
  return `invalid --status '${status}': expected one of ${valid.join(', ')}${guess ? ` (did you mean '${guess}'?)` : ''}`;
}

function listBuilder(yargs: Argv) {
  return yargs
    .option('status', { type: 'string', describe: 'only jobs with this status (see below)' })
    .option('format', { choices: OUTPUT_FORMATS, default: 'table' as OutputFormat });
}

async function listHandler(ctx: CliContext, args: Awaited<ReturnType<typeof listBuilder>['argv']> & GlobalArgs): Promise<void> {
  requireDatabaseFile(args.db);
  const store = new Store(args.db, readerOptions(ctx, args));
  const projectFilter = projectsOf(args)[0];
  const ledger = new JobLedger(store, '');
  // A status the API may add later is listed when the ledger has it; a typo is refused.
  if (args.status !== undefined && !KNOWN_STATUSES.includes(args.status)) {
    const stored = await ledger.statuses();
    if (!stored.includes(args.status)) throw new UsageError(unknownStatusMessage(args.status, stored));
  }
  const rows = await ledger.list({
    ...(args.status ? { status: args.status } : {}),
    ...(projectFilter ? { projectId: projectFilter } : {}),
  });
  const records = rows.map((r) => ({
    project_id: r.projectId,
    prompt_key: r.promptKey,
    prompt: args.format === 'table' ? shorten(r.prompt, 40) : r.prompt,
    status: r.status,
    job_id: r.jobId,
    pr_link: r.prLink,
    submitted_at: r.submittedAt,
    finished_at: r.finishedAt,
    error: r.error,
  }));
  const columns = ['project_id', 'prompt_key', 'prompt', 'status', 'job_id', 'pr_link', 'submitted_at', 'finished_at', 'error'];
  ctx.io.stdout(renderRows(args.format, columns, records));
}

export function jobsCommand(ctx: CliContext): CommandModule {
  const submit = defineCommand({
    command: 'submit <file>',
    describe: 'submit every prompt of a file once and follow each job to its end',
    builder: (yargs: Argv) =>
      commandHelp(submitBuilder(yargs), {
        examples: [
          ['jobs submit fixes.txt --project docs', 'one job per line of fixes.txt, each followed to its end'],
          ['jobs submit fixes.csv --concurrency 5 --results outcomes.csv', 'five at a time; outcomes written to a file'],
          ['jobs submit fixes.jsonl --dry-run', 'check the file and list what would be submitted'],
        ],
        epilogue: [
          'Prompt files, by extension:',
          '  .txt    one prompt per non-empty line; lines starting with # are comments',
          '  .jsonl  one JSON object per line: {"prompt": "...", "id": "..."}; id is optional',
          '  .csv    a header row with a "prompt" column and an optional "id" column (RFC 4180 quoting)',
          'A prompt is known by its id, else by a hash of its text: running the same file again submits',
          'nothing twice and polls unfinished jobs again. Exit 0 when every job ended (failed included),',
          '1 if any is unknown, timed_out or lost, 75 when --max-requests stopped submissions, 130 on Ctrl-C.',
        ].join('\n'),
      }),
    handler: (args) => submitHandler(ctx, args),
  });
  const list = defineCommand({
    command: 'list',
    describe: 'show the job ledger',
    builder: (yargs: Argv) =>
      commandHelp(listBuilder(yargs), {
        examples: [
          ['jobs list', 'every prompt submitted from this database, oldest first'],
          ['jobs list --status failed --format csv', 'failed jobs, as CSV'],
        ],
        epilogue: `Statuses: ${['active', ...TERMINAL_STATUSES].join(', ')} (the API's); ${LOCAL_STATUSES.join(', ')} (docpipe's own).`,
      }),
    handler: (args) => listHandler(ctx, args),
  });
  return {
    command: 'jobs',
    describe: 'submit a batch of agent jobs, list the ledger, prompts from SQL, follow-up messages',
    builder: (yargs) =>
      yargs
        .command(submit)
        .command(list)
        .command(fromQueryCommand(ctx))
        .command(messageCommand(ctx))
        .demandCommand(1, 'name a jobs command: submit, list, from-query or message')
        .recommendCommands()
        .example('docpipe jobs submit fixes.txt --project docs', 'submit a file of prompts and follow each job')
        .example('docpipe jobs list --status failed', 'the ledger, failed jobs only')
        .example('docpipe jobs from-query --file sql/prompts/top-pages.sql --template "Review {path}"', 'one job per row of a query'),
    handler: () => undefined,
  };
}
