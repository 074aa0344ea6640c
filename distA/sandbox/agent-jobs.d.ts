export declare const JOB_OUTCOMES: readonly ["completed-pr", "completed-no-pr", "failed", "archived", "never"];
export type JobOutcome = (typeof JOB_OUTCOMES)[number];
export declare const SANDBOX_REPOSITORY = "https://github.com/acme/docs";
export declare const SANDBOX_MODEL = "claude-sonnet-4-5";
export declare function outcomeOf(prompt: string): JobOutcome;
/** The API's AgentJob, as sent on the wire. */
export interface AgentJobBody {
    id: string;
    status: 'active' | 'completed' | 'archived' | 'failed';
    source: {
        repository: string;
        ref: string | null;
    };
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
export interface JobStoreOptions {
    pollsToFinish: number;
    now: () => number;
}
export declare class JobStore {
    private readonly options;
    private readonly records;
    private readonly byId;
    private nextPr;
    constructor(options: JobStoreOptions);
    create(projectId: string, prompt: string): AgentJobBody;
    /** A poll: counts towards the job's end. Undefined for an unknown id or another project's. */
    poll(projectId: string, id: string): AgentJobBody | undefined;
    /** A follow-up prompt: the job works again, towards the outcome of the new prompt. */
    message(projectId: string, id: string, prompt: string): AgentJobBody | undefined;
    list(): SandboxJob[];
    private find;
    private timestamp;
    /** Whether the job shows its outcome: only a poll moves it, so even pollsToFinish 0 needs one. */
    private finished;
    /** The job as the API shows it now (no side effects: jobs() may call it at any time). */
    private body;
}
