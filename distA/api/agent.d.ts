import type { HttpClient, RequestOptions } from './http-client.js';
import { type AgentJob } from './schemas.js';
/**
 * POST a new job. Not idempotent: only retried where the server provably created nothing.
 * `hooks` let the job ledger mark each attempt as it goes out and as its answer comes back.
 */
export declare function createAgentJob(client: HttpClient, projectId: string, prompt: string, signal?: AbortSignal, hooks?: Pick<RequestOptions<AgentJob>, 'beforeSend' | 'afterSend'>): Promise<AgentJob>;
export declare function getAgentJob(client: HttpClient, projectId: string, id: string, signal?: AbortSignal): Promise<AgentJob>;
/**
 * POST a follow-up message to a job; the answer is the job, working again. Not idempotent:
 * only retried where the server provably received nothing.
 */
export declare function sendAgentMessage(client: HttpClient, projectId: string, jobId: string, prompt: string, signal?: AbortSignal): Promise<AgentJob>;
/**
 * Checks the key with one request that no rate limit counts (a GET of a job: polling is not
 * limited) and that changes nothing: a 404 (no such job) or any answer but 401/403 means the
 * API took the key; 401/403 throws KeyRejectedError. Other failures say nothing about the key
 * and are left to the requests that follow.
 */
export declare function probeKey(client: HttpClient, projectId: string, signal?: AbortSignal): Promise<'accepted' | 'unknown'>;
