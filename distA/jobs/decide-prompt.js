/**
 * What to do with one prompt of a file, given its ledger row: the one decision that both the
 * batch runner and `jobs submit --dry-run` take, so that the dry run says what the run does.
 * Pure: the caller reads the ledger once and applies the decision.
 */
import { isFinalStatus } from './ledger.js';
export const PROMPT_ACTIONS = ['submit', 'resubmit', 'poll', 'skip'];
const CUT_OFF = 'cut off while submitting; outcome unknown';
export function decidePrompt(entry, row, options = {}) {
    const decision = (action, status, reason, markUnknown = false) => ({
        action,
        status,
        reason,
        markUnknown,
        warning: null,
    });
    if (!row)
        return decision('submit', null, 'new prompt');
    // Nothing was ever sent for it: submit (the text the file has now).
    if (row.status === 'pending' && !row.postStarted)
        return decision('submit', 'pending', 'not submitted yet');
    const markUnknown = row.status === 'pending' && row.postStarted;
    const status = markUnknown ? 'unknown' : row.status;
    let result;
    if (isFinalStatus(status)) {
        result = decision('skip', status, 'finished in an earlier run', markUnknown);
    }
    else if (status === 'unknown') {
        result = options.resubmitUnknown
            ? decision('resubmit', status, `${markUnknown ? CUT_OFF : 'outcome unknown'}; submitting again (--resubmit-unknown)`, markUnknown)
            : decision('skip', status, `${markUnknown ? CUT_OFF : 'outcome unknown'}; --resubmit-unknown to submit again`, markUnknown);
    }
    else if (row.jobId !== null) {
        result = decision('poll', status, 'submitted earlier; following it again', markUnknown);
    }
    else {
        // A status without a job to follow (e.g. an answer that had no id): nothing to poll.
        result = decision('submit', status, 'no job to follow', markUnknown);
    }
    if (row.prompt !== entry.prompt && result.action !== 'submit' && result.action !== 'resubmit') {
        result.warning =
            `id '${entry.key}' (line ${entry.line}) was used before for different text; ` +
                `the earlier job stands (${row.jobId ?? 'no job id'}, ${status}): give the new prompt its own id`;
    }
    return result;
}
//# sourceMappingURL=decide-prompt.js.map