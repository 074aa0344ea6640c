/**
 * Simulated agent jobs. A job is `active` until it has been polled `pollsToFinish` times,
 * then shows its outcome. The outcome comes from the prompt: a marker (`[pr]`, `[nopr]`,
 * `[fail]`, `[archive]`, `[never]`) if present, otherwise a hash of the text, with about
 * 60% completed with a PR, 15% completed without one, 15% failed and 10% archived.
 */
import { hashString } from './random.js';

export const JOB_OUTCOMES = ['completed-pr', 'completed-no-pr', 'failed', 'archived', 'never'] as const;
export type JobOutcome = (typeof JOB_OUTCOMES)[number];

export const SANDBOX_REPOSITORY = 'https://github.com/acme/docs';
export const SANDBOX_MODEL = 'claude-sonnet-4-5';
const FIRST_PR_NUMBER = 101;

/** Markers win over the hash, in this order, so tests can pin an outcome. */
const MARKERS: readonly [string, JobOutcome][] = [
  ['[never]', 'never'],
  ['[fail]', 'failed'],
  ['[archive]', 'archived'],
  ['[nopr]', 'completed-no-pr'],
  ['[pr]', 'completed-pr'],
];

export function outcomeOf(prompt: string): JobOutcome {
  const lower = prompt.toLowerCase();
  for (const [marker, outcome] of MARKERS) if (lower.includes(marker)) return outcome;
  const bucket = hashString(prompt) % 100;
  if (bucket < 60) return 'completed-pr';
  if (bucket < 75) return 'completed-no-pr';
  if (bucket < 90) return 'failed';
  return 'archived';
}

/** The API's AgentJob, as sent on the wire. */
export interface AgentJobBody {
  id: string;
  status: 'active' | 'completed' | 'archived' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
}

/** A job as tests see it through `Sandbox.jobs()`. */
export interface SandboxJob {
  id: string;
  projectId: string;
  prompt: string;
  status: string;
  prLink: string | null;
  createdAt: string;
  polls: number;
}

interface JobRecord {
  readonly id: string;
  readonly projectId: string;
  readonly prompt: string;
  readonly createdAt: string;
  outcome: JobOutcome;
  polls: number;
  /** Kept across follow-up messages: more work on the same branch updates the same PR. */
  prNumber: number | null;
  archivedAt: string | null;
}

export interface JobStoreOptions {
  pollsToFinish: number;
  now: () => number;
}

export class JobStore {
  private readonly records: JobRecord[] = [];
  private readonly byId = new Map<string, JobRecord>();
  private nextPr = FIRST_PR_NUMBER;

  constructor(private readonly options: JobStoreOptions) {}

  create(projectId: string, prompt: string): AgentJobBody {
    const id = `job_${String(this.records.length + 1).padStart(4, '0')}`;
    const record: JobRecord = {
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
  poll(projectId: string, id: string): AgentJobBody | undefined {
    const record = this.find(projectId, id);
    if (!record) return undefined;
    record.polls++;
    if (this.finished(record)) {
      if (record.outcome === 'completed-pr') record.prNumber ??= this.nextPr++;
      if (record.outcome === 'archived') record.archivedAt ??= this.timestamp();
    }
    return this.body(record);
  }

  /** A follow-up prompt: the job works again, towards the outcome of the new prompt. */
  message(projectId: string, id: string, prompt: string): AgentJobBody | undefined {
    const record = this.find(projectId, id);
    if (!record) return undefined;
    record.outcome = outcomeOf(prompt);
    record.polls = 0;
    record.archivedAt = null;
    return this.body(record);
  }

  list(): SandboxJob[] {
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

  private find(projectId: string, id: string): JobRecord | undefined {
    const record = this.byId.get(id);
    return record && record.projectId === projectId ? record : undefined;
  }

  private timestamp(): string {
    return new Date(this.options.now()).toISOString();
  }

  /** Whether the job shows its outcome: only a poll moves it, so even pollsToFinish 0 needs one. */
  private finished(record: JobRecord): boolean {
    return record.outcome !== 'never' && record.polls > 0 && record.polls >= this.options.pollsToFinish;
  }

  /** The job as the API shows it now (no side effects: jobs() may call it at any time). */
  private body(record: JobRecord): AgentJobBody {
    let status: AgentJobBody['status'] = 'active';
    let prLink: string | null = null;
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
