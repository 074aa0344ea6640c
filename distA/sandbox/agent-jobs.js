/**
 * Simulated agent jobs. A job is `active` until it has been polled `pollsToFinish` times,
 * then shows its outcome. The outcome comes from the prompt: a marker (`[pr]`, `[nopr]`,
 * `[fail]`, `[archive]`, `[never]`) if present, otherwise a hash of the text, with about
 * 60% completed with a PR, 15% completed without one, 15% failed and 10% archived.
 */
import { hashString } from './random.js';
export const JOB_OUTCOMES = ['completed-pr', 'completed-no-pr', 'failed', 'archived', 'never'];
export const SANDBOX_REPOSITORY = 'https://github.com/acme/docs';
export const SANDBOX_MODEL = 'claude-sonnet-4-5';
const FIRST_PR_NUMBER = 101;
/** Markers win over the hash, in this order, so tests can pin an outcome. */
const MARKERS = [
    ['[never]', 'never'],
    ['[fail]', 'failed'],
    ['[archive]', 'archived'],
    ['[nopr]', 'completed-no-pr'],
    ['[pr]', 'completed-pr'],
];
export function outcomeOf(prompt) {
    const lower = prompt.toLowerCase();
    for (const [marker, outcome] of MARKERS)
        if (lower.includes(marker))
            return outcome;
    const bucket = hashString(prompt) % 100;
    if (bucket < 60)
        return 'completed-pr';
    if (bucket < 75)
        return 'completed-no-pr';
    if (bucket < 90)
        return 'failed';
    return 'archived';
}
export class JobStore {
    options;
    records = [];
    byId = new Map();
    nextPr = FIRST_PR_NUMBER;
    constructor(options) {
        this.options = options;
    }
    create(projectId, prompt) {
        const id = `job_${String(this.records.length + 1).padStart(4, '0')}`;
        const record = {
            id,
            projectId,
            prompt,
            createdAt: this.timestamp(),
            outcome: outcomeOf(prompt),
            polls: 0,
            prNumber: null,
            archivedAt: null,
        };
        this.records.push(record);
        this.byId.set(id, record);
        return this.body(record);
    }
    /** A poll: counts towards the job's end. Undefined for an unknown id or another project's. */
    poll(projectId, id) {
        const record = this.find(projectId, id);
        if (!record)
            return undefined;
        record.polls++;
        if (this.finished(record)) {
            if (record.outcome === 'completed-pr')
                record.prNumber ??= this.nextPr++;
            if (record.outcome === 'archived')
                record.archivedAt ??= this.timestamp();
        }
        return this.body(record);
    }
    /** A follow-up prompt: the job works again, towards the outcome of the new prompt. */
    message(projectId, id, prompt) {
        const record = this.find(projectId, id);
        if (!record)
            return undefined;
        record.outcome = outcomeOf(prompt);
        record.polls = 0;
        record.archivedAt = null;
        return this.body(record);
    }
    list() {
        return this.records.map((record) => {
            const body = this.body(record);
            return {
                id: record.id,
                projectId: record.projectId,
                prompt: record.prompt,
                status: body.status,
                prLink: body.prLink,
                createdAt: record.createdAt,
                polls: record.polls,
            };
        });
    }
    find(projectId, id) {
        const record = this.byId.get(id);
        return record && record.projectId === projectId ? record : undefined;
    }
    timestamp() {
        return new Date(this.options.now()).toISOString();
    }
    /** Whether the job shows its outcome: only a poll moves it, so even pollsToFinish 0 needs one. */
    finished(record) {
        return record.outcome !== 'never' && record.polls > 0 && record.polls >= this.options.pollsToFinish;
    }
    /** The job as the API shows it now (no side effects: jobs() may call it at any time). */
    body(record) {
        let status = 'active';
        let prLink = null;
        if (this.finished(record)) {
            switch (record.outcome) {
                case 'completed-pr':
                    status = 'completed';
                    prLink = record.prNumber === null ? null : `${SANDBOX_REPOSITORY}/pull/${record.prNumber}`;
                    break;
                case 'completed-no-pr':
                    status = 'completed';
                    break;
                case 'failed':
                    status = 'failed';
                    break;
                case 'archived':
                    status = 'archived';
                    break;
                case 'never':
                    break;
            }
        }
        return {
            id: record.id,
            status,
            // A job that committed nothing never had a branch of its own to show.
            source: { repository: SANDBOX_REPOSITORY, ref: status === 'completed' && prLink === null ? null : `docpipe/${record.id}` },
            model: SANDBOX_MODEL,
            prLink,
            createdAt: record.createdAt,
            archivedAt: status === 'archived' ? record.archivedAt : null,
        };
    }
}
//# sourceMappingURL=agent-jobs.js.map