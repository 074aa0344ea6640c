/**
 * What to do with one prompt of a file, given its ledger row: the one decision that both the
 * batch runner and `jobs submit --dry-run` take, so that the dry run says what the run does.
 * Pure: the caller reads the ledger once and applies the decision.
 */
import { isFinalRow, isFinalStatus, type LedgerRow } from './ledger.js';
import type { PromptEntry } from './prompt-files.js';

export const PROMPT_ACTIONS = ['submit', 'resubmit', 'poll', 'skip', 'taken'] as const;
export type PromptAction = (typeof PROMPT_ACTIONS)[number];

export interface PromptDecision {
  action: PromptAction;
  /** The row's status once the decision is applied (`unknown` for a POST cut off mid-flight); null for a new prompt. */
  status: string | null;
  /** Why, in a few words (shown by the dry run and in skip events). */
  reason: string;
  /** An earlier run was cut off between marking the POST and learning its fate: record `unknown` first. */
  markUnknown: boolean;
  /** A line for the user, e.g. an id reused with other text. */
  warning: string | null;
}

export interface DecideOptions {
  /** Submit again a prompt whose earlier submission has an unknown outcome. @default false */
  resubmitUnknown?: boolean;
}

const CUT_OFF = 'cut off while submitting; outcome unknown';

export function decidePrompt(entry: PromptEntry, row: LedgerRow | undefined, options: DecideOptions = {}): PromptDecision {
  const decision = (action: PromptAction, status: string | null, reason: string, markUnknown = false): PromptDecision => ({
    action,
    status,
    reason,
    markUnknown,
    warning: null,
  });
  if (!row) return decision('submit', null, 'new prompt');
  // docpipe's own `pending` never has a job id: a row with one holds the API's answer, even
  // when the API calls its job's status `pending` too.
  const localPending = row.status === 'pending' && row.jobId === null;
  // Nothing was ever sent for it: submit (the text the file has now).
  if (localPending && !row.postStarted) return decision('submit', 'pending', 'not submitted yet');

  // Another run that is still going has this POST in flight: its outcome is that run's.
  if (localPending && row.postStarted && row.postInFlight === true) {
    return decision('taken', 'pending', 'being submitted by another run that is still going');
  }
  const markUnknown = localPending && row.postStarted;
  // The API answered a POST but gave no job id to follow: a job may exist, so its outcome is
  // unknown, and the prompt is never posted again blindly (DESIGN rule 7).
  const noJob = !localPending && row.jobId === null && !isFinalStatus(row.status) && row.status !== 'unknown';
  const status = markUnknown || noJob ? 'unknown' : row.status;
  const why = markUnknown ? CUT_OFF : noJob ? `answered ${row.status} without a job id; outcome unknown` : 'outcome unknown';
  let result: PromptDecision;
  // A name the API shares with a local status (`unknown`, `rejected`) is followed like any
  // status it does not document, and never posted again (see isFinalRow).
  const final = isFinalRow({ jobId: row.jobId, status });
  if (row.jobId !== null && !final) {
    result = decision('poll', status, 'submitted earlier; following it again', markUnknown);
  } else if (final) {
    result = decision('skip', status, 'finished in an earlier run', markUnknown);
  } else if (status === 'unknown') {
    result = options.resubmitUnknown
      ? decision('resubmit', status, `${why}; submitting again (--resubmit-unknown)`, markUnknown)
      : decision('skip', status, `${why}; --resubmit-unknown to submit again`, markUnknown);
  } else {
    result = decision('poll', status, 'submitted earlier; following it again', markUnknown);
  }
  if (row.prompt !== entry.prompt && result.action !== 'submit' && result.action !== 'resubmit') {
    result.warning =
      `id '${entry.key}' (line ${entry.line}) was used before for different text; ` +
      `the earlier job stands (${row.jobId ?? 'no job id'}, ${status}): give the new prompt its own id`;
  }
  return result;
}
