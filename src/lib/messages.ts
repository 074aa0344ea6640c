/**
 * `sendMessages`: follow-up messages to agent jobs, each sent once (the message ledger,
 * `agent_messages`), each job followed again to its end. Messages share the project's hourly
 * budget with job creation. It never prints and never exits.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { JobLedger } from '../jobs/ledger.js';
import { MessageLedger } from '../jobs/message-ledger.js';
import { readMessageFile, resolveMessages, type MessageEntry, type MessageRequest } from '../jobs/message-file.js';
import { runMessages, type MessageEvent, type MessagesSummary } from '../jobs/run-messages.js';
import { logCrashedRuns, newRunId, recordRunEnd, recordRunStart, runOutcome } from '../load/runs.js';
import { createWorkspace } from './session.js';
import { checkOptionNames, checkProjectId, COMMON_OPTION_NAMES, optionNames, refuseKeyInPrompts, requireKeptDb, resolveCommon, stopBeforeStart, withoutKey, yesNo, type CommonOptions, type StopBeforeStart } from './common.js';
import { agentSession, FOLLOW_OPTION_NAMES, resolveFollow, type JobFollowOptions } from './jobs.js';

/** A message given in code: the job by its API id or by its prompt key in the ledger. */
export interface MessageInput {
  jobId?: string;
  promptKey?: string;
  prompt: string;
  /** @default `sha256:` and 16 hex digits of the job id and the text */
  id?: string;
}

export interface SendMessagesOptions extends CommonOptions, JobFollowOptions {
  project: string;
  /** A `.jsonl` file of `{"jobId"|"promptKey", "prompt", "id"?}` lines, or the messages themselves. */
  messages: string | readonly MessageInput[];
  /** Recorded as each message's `source_file`. @default the file's path, or `'library'` */
  source?: string;
  /** Jobs followed at once (a job's own messages always go one after another). @default 3 */
  concurrency?: number;
  /**
   * Send again messages whose earlier POST has an unknown outcome (the CLI's
   * `--resubmit-unknown`, submitJobs' `resubmitUnknown`). @default false
   */
  resubmitUnknown?: boolean;
  /** @deprecated the name of `resubmitUnknown` until 0.3: still read. */
  resendUnknown?: boolean;
  onEvent?: (event: MessageEvent) => void;
}

const MESSAGES_OPTION_NAMES = optionNames<SendMessagesOptions>()([
  ...COMMON_OPTION_NAMES, ...FOLLOW_OPTION_NAMES, 'project', 'messages', 'source', 'concurrency', 'resubmitUnknown', 'resendUnknown', 'onEvent',
]);

export interface SendMessagesResult extends MessagesSummary {
  runId: string;
  /** Duplicate messages that were dropped, one line each. */
  warnings: string[];
}

function requestsOf(messages: readonly MessageInput[]): MessageRequest[] {
  if (!Array.isArray(messages)) throw new UsageError('invalid messages: expected a list of {jobId | promptKey, prompt, id?}');
  if (messages.length === 0) throw new UsageError('messages: none given');
  return messages.map((m, index) => {
    const where = `messages[${index}]`;
    const prompt = typeof m?.prompt === 'string' ? m.prompt.replace(/\r\n/g, '\n').trim() : '';
    if (prompt === '') throw new UsageError(`${where}: prompt must be a non-empty string`);
    for (const field of ['jobId', 'promptKey', 'id'] as const) {
      const value: unknown = m[field];
      if (value !== undefined && typeof value !== 'string') throw new UsageError(`${where}: invalid ${field} '${String(value)}': expected a string`);
    }
    const jobId = m.jobId?.trim();
    const promptKey = m.promptKey?.trim();
    if ((jobId ? 1 : 0) + (promptKey ? 1 : 0) !== 1) throw new UsageError(`${where}: give exactly one of jobId and promptKey`);
    const id = m.id?.trim();
    if (id === '') throw new UsageError(`${where}: empty id`);
    return { line: index + 1, prompt, ...(jobId ? { jobId } : {}), ...(promptKey ? { promptKey } : {}), ...(id ? { id } : {}) };
  });
}

/** The messages with their jobs resolved against the project's job ledger. */
export async function planMessages(ledger: JobLedger, projectId: string, label: string, requests: readonly MessageRequest[]): Promise<{ entries: MessageEntry[]; warnings: string[] }> {
  return resolveMessages(label, requests, await ledger.list({ projectId }));
}

/** The summary of a run of messages that ended before it began, nothing sent (see batchEndedBeforeStart). */
function messagesEndedBeforeStart(total: number, runId: string, stop: StopBeforeStart): SendMessagesResult {
  return {
    total,
    sent: 0,
    taken: 0,
    rows: [],
    counts: total > 0 ? { 'not sent': total } : {},
    ...stop,
    runId,
    warnings: [],
  };
}

/**
 * Sends each message once and follows its job again to its end. Resolves to one ledger row
 * per message and `exitCode` (0 every message sent and its job ended, or refused by the API;
 * 1 an unknown outcome or a job still active at the timeout; 75 the request cap stopped
 * sending; 130 interrupted).
 */
export async function sendMessages(options: SendMessagesOptions): Promise<SendMessagesResult> {
  return withoutKey(options?.apiKey, () => sendNow(options));
}

async function sendNow(options: SendMessagesOptions): Promise<SendMessagesResult> {
  checkOptionNames(options, MESSAGES_OPTION_NAMES, { entry: 'sendMessages' });
  const resubmit = yesNo('resubmitUnknown', options.resubmitUnknown, yesNo('resendUnknown', options.resendUnknown));
  if (options.resubmitUnknown != null && options.resendUnknown != null && options.resubmitUnknown !== options.resendUnknown) {
    throw new UsageError(`resubmitUnknown (${String(options.resubmitUnknown)}) and resendUnknown (${String(options.resendUnknown)}) disagree: give resubmitUnknown only`);
  }
  const projectId = checkProjectId('project', options.project);
  const follow = resolveFollow(options);
  const label = typeof options.messages === 'string' ? options.messages : 'messages';
  const requests = typeof options.messages === 'string' ? await readMessageFile(options.messages) : requestsOf(options.messages);
  const common = resolveCommon(options);
  requireKeptDb(common.workspace.db);
  refuseKeyInPrompts(requests, common.apiKey, label);
  // A database that does not exist has no ledger: a message naming a prompt's key is refused
  // before one is made (an empty file left behind).
  if (!existsSync(common.workspace.db)) resolveMessages(label, requests, []);
  const { clock } = common;
  const runId = newRunId(clock.now());
  const workspace = createWorkspace(common.workspace, runId, common.logger, common.signal ? { signal: common.signal } : {});
  const { store } = workspace;
  const jobs = new JobLedger(store, runId);
  const source = options.source ?? (typeof options.messages === 'string' ? options.messages : 'library');
  let planned: Awaited<ReturnType<typeof planMessages>>;
  try {
    planned = await planMessages(jobs, projectId, label, requests);
    for (const warning of planned.warnings) common.logger.warn('messages', { warning });
    logCrashedRuns(common.logger, await recordRunStart(store, runId, `jobs message ${source}`, clock.now()));
  } catch (error) {
    // Held by another process past the lock wait before the run could begin (or stopped while
    // it waited): no message was sent. It ends as a run stopped later does, with its summary,
    // but with no record in `runs`: it never started.
    const stop = stopBeforeStart(error);
    if (stop === null) throw error;
    return messagesEndedBeforeStart(requests.length, runId, stop);
  }
  const { entries, warnings } = planned;
  const session = agentSession(common, workspace, projectId, follow.jobsPerHour);
  const summary = await runMessages({
    client: session.client,
    messages: new MessageLedger(store, runId, workspace.spool.root),
    jobs,
    clock,
    projectId,
    sourceFile: source,
    entries,
    concurrency: follow.concurrency,
    pollIntervalMs: follow.pollIntervalMs,
    timeoutMs: follow.timeoutMs,
    resendUnknown: resubmit,
    ...(common.signal ? { signal: common.signal } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  });
  const recorded = { total: summary.total, sent: summary.sent, counts: summary.counts };
  await recordRunEnd(store, workspace.spool.root, runId, runOutcome(summary.stopped, summary.exitCode, recorded), clock.now(), common.logger);
  return { ...summary, runId, warnings };
}
