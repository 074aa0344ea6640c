import { existsSync, realpathSync, statSync } from 'node:fs';
import { jsonLine } from '../../core/neutralise.js';
import { dirname, extname } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { TERMINAL_STATUSES } from '../../api/schemas.js';
import { closestWord } from '../../core/did-you-mean.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { decidePrompt } from '../../jobs/decide-prompt.js';
import { JobLedger, LOCAL_STATUSES, readLedger, readStatuses, type LedgerRow } from '../../jobs/ledger.js';
import { readPromptFile, type PromptEntry } from '../../jobs/prompt-files.js';
import { promptStart, type BatchEvent } from '../../jobs/run-batch.js';
import { refuseKeyInPrompts, requireKeptDb, resolveCommon } from '../../lib/common.js';
import { runJobBatch, type SubmitJobsResult } from '../../lib/jobs.js';
import type { Logger } from '../../core/logger.js';
import { Store } from '../../load/store.js';
import { upgradeIfOlder } from '../../load/database.js';
import { readAllKeptJobs } from '../../spool/kept-jobs.js';
import { spoolDirFor } from '../../spool/spool.js';
import { apiKeyIfGiven, projectsOf, requireProjects, resolveApiKey } from '../api-key.js';
import { defineCommand, type CliContext } from '../context.js';
import { loggerFor, tellStderr, type GlobalArgs } from '../io.js';
import { commandHelp } from '../help.js';
import { numberOption } from '../options.js';
import { OUTPUT_FORMATS, renderCsv, renderJsonLines, renderRows, type OutputFormat } from '../output/table.js';
import { commonOf } from '../common-options.js';
import { countsLine, stopLine } from '../output/batch-summary.js';
import { fromQueryCommand } from './jobs-from-query.js';
import { messageCommand } from './jobs-message.js';
import { readerOptions, withCurrentSchema } from '../session.js';
import { writeFileAtomic } from '../../spool/spool.js';
import { checkOutPath, writingOut } from '../out-path.js';

const RESULT_COLUMNS = ['prompt_key', 'prompt', 'status', 'job_id', 'pr_link', 'error'] as const;

/** `jobs list` as a table fits a terminal this wide (the submitted time and the rest are in CSV and JSON). */
const LIST_TABLE_WIDTH = 100;

function resultRecord(row: LedgerRow): Record<string, unknown> {
  return { prompt_key: row.promptKey, prompt: row.prompt, status: row.status, job_id: row.jobId, pr_link: row.prLink, error: row.error };
}

/** Every column of the ledger, for `jobs list --format csv|json`. */
const LEDGER_COLUMNS = [
  'project_id', 'prompt_key', 'prompt', 'status', 'job_id', 'model', 'repository', 'ref', 'pr_link', 'created_at',
  'archived_at', 'submitted_at', 'finished_at', 'error', 'flags', 'source_file', 'attempts', 'polls', 'messages',
] as const;

function ledgerRecord(r: LedgerRow): Record<(typeof LEDGER_COLUMNS)[number], unknown> {
  return {
    project_id: r.projectId, prompt_key: r.promptKey, prompt: r.prompt, status: r.status, job_id: r.jobId, model: r.model,
    repository: r.repository, ref: r.ref, pr_link: r.prLink, created_at: r.createdAt, archived_at: r.archivedAt,
    submitted_at: r.submittedAt, finished_at: r.finishedAt, error: r.error, flags: r.flags, source_file: r.sourceFile,
    attempts: r.attempts, polls: r.polls, messages: r.messages ?? 0,
  };
}

function singleProject(projects: string[]): string {
  if (projects.length > 1) throw new UsageError(`jobs take one --project, got ${projects.length}: ${projects.join(', ')}`);
  return projects[0] as string;
}

/** The file a batch reads its prompts (`jobs submit`) or its SQL (`jobs from-query --file`) from. */
const inputFileOf = (args: Record<string, unknown>): string | undefined => (typeof args.file === 'string' ? args.file : undefined);

/**
 * The file `--results` writes (a symbolic link's target): a .jsonl or .csv file that can be
 * written, and not the file the prompts or the SQL are read from (the next run would read its
 * results as prompts). Checked before the batch runs, not after an hour of jobs, and again
 * when the results are written (the folder or the link may have changed meanwhile).
 */
function checkResultsPath(path: string, input: string | undefined): string {
  if (!['.jsonl', '.csv'].includes(extname(path).toLowerCase())) {
    throw new UsageError(`invalid --results '${path}': expected a .jsonl or .csv file`);
  }
  // A folder that is not there is a typo to catch, not one to make.
  const folder = dirname(path);
  let found: 'folder' | 'file' | 'none' = 'none';
  try {
    found = statSync(folder).isDirectory() ? 'folder' : 'file';
  } catch {
    // not there, or a part of it is a file
  }
  if (found !== 'folder') throw new UsageError(`invalid --results '${path}': ${found === 'file' ? `'${folder}' is a file, not a folder` : `folder '${folder}' does not exist`}`);
  const target = checkOutPath(path, 'file', '--results');
  if (input !== undefined && existsSync(input) && realpathSync(input) === target) {
    throw new UsageError(`invalid --results '${path}': it is the file the prompts are read from; name another file`);
  }
  return target;
}

async function writeResults(path: string, input: string | undefined, rows: readonly LedgerRow[]): Promise<void> {
  const target = checkResultsPath(path, input);
  const ext = extname(target).toLowerCase();
  const records = rows.map(resultRecord);
  const text = ext === '.csv' ? renderCsv(RESULT_COLUMNS, records) : renderJsonLines(records);
  // Write then rename, so a reader never sees half a file (and two runs' files never mix).
  await writingOut(path, () => writeFileAtomic(target, text), '--results');
}

function submitBuilder(yargs: Argv) {
  return submitOptions(yargs.positional('file', { type: 'string', demandOption: true, describe: 'prompts: .txt, .jsonl or .csv' }));
}

/** How jobs are followed: the options of `jobs submit`, `jobs from-query` and `jobs message`. */
export function followOptions<T>(yargs: Argv<T>) {
  return yargs
    .option('concurrency', numberOption('concurrency', { integer: true, min: 1 }, { default: 3, describe: 'jobs in flight at once' }))
    .option(
      'poll-interval',
      numberOption('poll-interval', { above: 0, seconds: true }, { default: 5, describe: 'first poll interval: seconds, or 30s, 1m (backs off to 60 s)' }),
    )
    .option('timeout', numberOption('timeout', { above: 0, seconds: true }, { default: 3600, describe: 'how long to follow a job before timed_out: seconds, or 45m, 2h' }))
    .option(
      'jobs-per-hour',
      numberOption('jobs-per-hour', { integer: true, min: 1 }, {
        default: 100,
        describe: 'job submissions and follow-up messages per hour (the API limit per project)',
      }),
    );
}

/** The options of `jobs submit`, which `jobs from-query` shares. */
export function submitOptions<T>(yargs: Argv<T>) {
  return followOptions(yargs)
    .option('dry-run', { type: 'boolean', default: false, describe: 'check the prompts and list what would be submitted (no request)' })
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
  if (!args['dry-run']) requireKeptDb(args.db, '--db');
  if (args.results !== undefined) checkResultsPath(args.results, inputFileOf(args));
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
    // A prompt that holds the key is refused (without being shown), as the run refuses it.
    refuseKeyInPrompts(batch.entries, apiKeyIfGiven(args), batch.source);
    // One read of the ledger (read-only, beside other readers; none yet: nothing was submitted),
    // and the runner's own decision for each prompt. A dry run never creates the database.
    const ledgerRows = async (): Promise<Map<string, LedgerRow>> => {
      await upgradeIfOlder(args.db, readerOptions(ctx, args)); // the ledger's columns are this release's
      return new JobLedger(new Store(args.db, readerOptions(ctx, args)), '', spoolDirFor(args.db)).byKeyWithKept(projectId);
    };
    const rows = existsSync(args.db) ? await ledgerRows() : new Map<string, LedgerRow>();
    const plan = batch.entries.map((entry) => {
      const decision = decidePrompt(entry, rows.get(entry.key), { resubmitUnknown: args['resubmit-unknown'] });
      if (decision.warning) logger.warn('prompt id reused', { key: entry.key, warning: decision.warning });
      const prompt = batch.fullPrompts ? entry.prompt : promptStart(entry.prompt, 40);
      return { line: entry.line, key: entry.key, action: decision.action, status: decision.status, reason: decision.reason, prompt };
    });
    if (batch.fullPrompts) ctx.io.stdout(renderPrompts(plan));
    else ctx.io.stdout(renderRows('table', ['line', 'key', 'action', 'status', 'reason', 'prompt'], plan));
    const toSubmit = plan.filter((p) => p.action === 'submit' || p.action === 'resubmit').length;
    ctx.io.stdout(`dry run: ${batch.entries.length} prompts in ${batch.source}, ${toSubmit} would be submitted; no request made\n`);
    return;
  }

  const onEvent = (event: BatchEvent): void => {
    const { kind, ...fields } = event;
    if (kind === 'warning') return logger.warn('job warning', fields);
    if (kind === 'status' && event.status === 'active') return logger.debug('job polled', fields);
    logger.info(`job ${kind}`, fields);
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
  await reportBatch(ctx, args, batch.name, summary, logger);
}

/**
 * A batch's end: its --results file, and its summary on stdout (JSON, or a table and a line).
 * `promptsRead: false`: the prompts were never read (from-query's query could not run).
 */
export async function reportBatch(ctx: CliContext, args: SubmitArgs, name: string, summary: SubmitJobsResult, logger: Logger, promptsRead = true): Promise<void> {
  const { runId } = summary;
  /** The --results file could not be written at the end (its folder removed, a full disk): said, and the run fails. */
  let resultsFailed = false;
  // Not over an earlier file with nothing: the outcomes are unknown here when the file was held.
  if (args.results !== undefined && summary.rowsRead) {
    try {
      await writeResults(args.results, inputFileOf(args), summary.rows);
    } catch (error) {
      // The batch is over: its summary and its outcome still come (the ledger holds every row: jobs list).
      resultsFailed = true;
      logger.error('results not written', { file: args.results, error: error instanceof Error ? error.message : String(error), detail: 'docpipe jobs list shows the outcomes' });
    }
  } else if (args.results !== undefined) {
    const detail = summary.submitted > 0 || summary.taken > 0
      ? 'the database was held: docpipe jobs list shows the outcomes once it is free'
      : 'the database was held before the batch began: nothing was submitted';
    logger.warn('results not written', { file: args.results, detail });
  }
  // A job's result: its pull request, else why it failed or stopped (the API's reason where it gives one).
  const table = summary.rows.map((r) => ({ prompt: promptStart(r.prompt), status: r.status, result: r.prLink ?? (r.error ? `(${promptStart(r.error, 60)})` : '') }));
  const counts = countsLine(summary.counts);
  const stopped = stopLine(summary, 'prompts not yet submitted stay pending');
  if (logger.format === 'json') {
    ctx.io.stdout(jsonLine({ event: 'summary', command: name, runId, total: summary.total, submitted: summary.submitted, taken: summary.taken, counts: summary.counts, stopped: summary.stopped, message: summary.stopMessage, jobs: summary.rows.map(resultRecord) }));
  } else {
    if (promptsRead) ctx.io.stdout(renderRows('table', ['prompt', 'status', 'result'], table));
    const taken = summary.taken > 0 ? ` (${summary.taken} taken by another run of the same prompts)` : '';
    const prompts = promptsRead ? `${summary.total} prompts` : 'the query did not finish';
    ctx.io.stdout(`${prompts}, ${summary.submitted} submitted this run${taken}${counts ? `: ${counts}` : ''}${stopped}\n`);
  }
  // The file asked for is missing: a run that was otherwise done fails (exit 1); a stop keeps its code.
  ctx.exitCode = resultsFailed && summary.exitCode === EXIT.ok ? EXIT.failed : summary.exitCode;
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
  // Every project given (`--project a --project b`, or `a,b`); none: all.
  const projects = projectsOf(args);
  const listed = (projectId: string): boolean => projects.length === 0 || projects.includes(projectId);
  // A ledger no writer has opened since an upgrade is brought up to this release first (its
  // columns and the messages table), as report and dump do.
  const rows = await withCurrentSchema(ctx, args, async (db) => {
    // A status the API may add later is listed when the ledger has it; a typo is refused.
    if (args.status !== undefined && !KNOWN_STATUSES.includes(args.status)) {
      const stored = await readStatuses(db);
      if (!stored.includes(args.status)) throw new UsageError(unknownStatusMessage(args.status, stored));
    }
    const ledger = await readLedger(db, {
      ...(args.status ? { status: args.status } : {}),
      ...(projects.length === 1 ? { projectId: projects[0] } : {}),
    });
    return ledger.filter((r) => listed(r.projectId));
  });
  // Jobs created while the database was held are not in the ledger yet: say so, beside the list.
  const kept = readAllKeptJobs(spoolDirFor(args.db), 'created').filter((k) => listed(k.projectId));
  if (kept.length > 0) {
    const one = kept.length === 1;
    tellStderr(ctx.io, loggerFor(ctx.io, args).format, {
      level: 'warn',
      event: 'jobs kept in the spool',
      text:
        `${kept.length} job${one ? '' : 's'} created while the database was held ${one ? 'is' : 'are'} kept in the spool, not listed yet: ` +
        `the next jobs batch of the project records and follows ${one ? 'it' : 'them'} (docpipe doctor names ${one ? 'it' : 'them'})`,
      fields: { jobs: kept.length },
    });
  }
  if (args.format !== 'table') {
    const records = rows.map(ledgerRecord);
    ctx.io.stdout(renderRows(args.format, LEDGER_COLUMNS, records));
    return;
  }
  // The table is for reading on a terminal: what was asked, where it stands, what came of it.
  // Keys and links are for copying, so the prompt gives up its width first.
  const records = rows.map((r) => ({
    key: r.promptKey,
    status: r.status,
    prompt: r.prompt,
    // Follow-up messages sent to the job (`jobs message`).
    msgs: r.messages ?? 0,
    result: r.prLink ?? r.error ?? (r.flags ? `(${r.flags})` : null),
  }));
  const columns = ['key', 'status', 'msgs', 'prompt', 'result'];
  const keep = Object.fromEntries(['key', 'status', 'msgs'].map((c) => [c, Math.max(c.length, ...records.map((r) => String(r[c as 'key']).length))]));
  ctx.io.stdout(renderRows('table', columns, records, { lineWidth: LIST_TABLE_WIDTH, shrinkFirst: ['prompt'], minWidths: { ...keep, prompt: 16 } }));
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
