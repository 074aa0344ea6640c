import { describe, expect, it } from 'vitest';
import { decidePrompt } from '../../src/jobs/decide-prompt.js';
import type { LedgerRow } from '../../src/jobs/ledger.js';
import type { PromptEntry } from '../../src/jobs/prompt-files.js';

const entry: PromptEntry = { key: 'fix-1', prompt: 'Fix the quickstart', line: 3, id: 'fix-1' };

function row(fields: Partial<LedgerRow>): LedgerRow {
  return {
    projectId: 'docs', promptKey: 'fix-1', prompt: 'Fix the quickstart', jobId: null, status: 'pending', model: null, repository: null,
    ref: null, prLink: null, createdAt: null, archivedAt: null, submittedAt: null, finishedAt: null, error: null, flags: null,
    sourceFile: 'p.txt', attempts: 0, polls: 0, postStarted: false, ...fields,
  };
}

describe('decidePrompt', () => {
  it.each([
    ['a new prompt', undefined, false, 'submit', null, false],
    ['a pending prompt never posted (killed while it waited for the budget)', row({}), false, 'submit', 'pending', false],
    ['a prompt cut off mid-POST', row({ postStarted: true }), false, 'skip', 'unknown', true],
    ['a prompt cut off mid-POST, with --resubmit-unknown', row({ postStarted: true }), true, 'resubmit', 'unknown', true],
    ['a POST another run still going has in flight', row({ postStarted: true, postInFlight: true }), false, 'taken', 'pending', false],
    ['a POST another run still going has in flight, with --resubmit-unknown', row({ postStarted: true, postInFlight: true }), true, 'taken', 'pending', false],
    ['an unknown outcome', row({ status: 'unknown', postStarted: true }), false, 'skip', 'unknown', false],
    ['an unknown outcome, with --resubmit-unknown', row({ status: 'unknown' }), true, 'resubmit', 'unknown', false],
    ['an active job', row({ status: 'active', jobId: 'j1', postStarted: true }), false, 'poll', 'active', false],
    ['a timed-out job', row({ status: 'timed_out', jobId: 'j1' }), false, 'poll', 'timed_out', false],
    ['a status the API does not document', row({ status: 'cancelled', jobId: 'j1' }), true, 'poll', 'cancelled', false],
    ['a completed job', row({ status: 'completed', jobId: 'j1' }), true, 'skip', 'completed', false],
    ['a failed job', row({ status: 'failed', jobId: 'j1' }), false, 'skip', 'failed', false],
    ['a rejected prompt', row({ status: 'rejected' }), true, 'skip', 'rejected', false],
    ['an answer without a job id (a job may exist)', row({ status: 'active', postStarted: true }), false, 'skip', 'unknown', false],
    ['an answer without a job id, in a status the API does not document', row({ status: 'queued', postStarted: true }), false, 'skip', 'unknown', false],
    ['an answer without a job id, with --resubmit-unknown', row({ status: 'queued', postStarted: true }), true, 'resubmit', 'unknown', false],
    ['a job whose status the API calls pending too', row({ status: 'pending', jobId: 'j1', postStarted: true }), false, 'poll', 'pending', false],
    ['a job whose status the API calls pending too, with --resubmit-unknown', row({ status: 'pending', jobId: 'j1', postStarted: true }), true, 'poll', 'pending', false],
    // The API's statuses named like docpipe's own are followed, never posted again.
    ['a job whose status the API calls unknown, with --resubmit-unknown', row({ status: 'unknown', jobId: 'j1', postStarted: true }), true, 'poll', 'unknown', false],
    ['a job whose status the API calls rejected', row({ status: 'rejected', jobId: 'j1' }), false, 'poll', 'rejected', false],
  ] as const)('%s', (_name, existing, resubmitUnknown, action, status, markUnknown) => {
    const decision = decidePrompt(entry, existing, { resubmitUnknown });
    expect(decision).toMatchObject({ action, status, markUnknown, warning: null });
    expect(decision.reason).not.toBe('');
  });

  it('says why a cut-off prompt is skipped', () => {
    expect(decidePrompt(entry, row({ postStarted: true })).reason).toMatch(/cut off while submitting.*--resubmit-unknown/);
  });

  it('warns when an id is reused for different text: the earlier job stands', () => {
    const earlier = row({ status: 'completed', jobId: 'job_0007', prompt: 'Something else entirely' });
    const decision = decidePrompt(entry, earlier);
    expect(decision.action).toBe('skip');
    expect(decision.warning).toBe(
      "id 'fix-1' (line 3) was used before for different text; the earlier job stands (job_0007, completed): give the new prompt its own id",
    );
    // Nothing was ever sent for the earlier text: the new text is simply submitted.
    expect(decidePrompt(entry, row({ prompt: 'Something else entirely' }))).toMatchObject({ action: 'submit', warning: null });
  });
});
