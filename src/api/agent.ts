import { ApiUnreachableError, DataError, HttpError, InterruptedError, KeyRejectedError } from '../core/errors.js';
import type { HttpClient, RequestOptions } from './http-client.js';
import { parseAgentJob, type AgentJob } from './schemas.js';

function jobPath(projectId: string, id?: string): string {
  const base = `/v2/agent/${encodeURIComponent(projectId)}/job`;
  return id === undefined ? base : `${base}/${encodeURIComponent(id)}`;
}

/**
 * POSTs `{prompt}` and reads the job the API answers with. Not idempotent: a request in flight
 * is never aborted, and it is retried only where the server provably received nothing.
 */
function postPrompt(
  client: HttpClient,
  path: string,
  prompt: string,
  signal: AbortSignal | undefined,
  hooks: Pick<RequestOptions<AgentJob>, 'beforeSend' | 'afterSend'> = {},
): Promise<AgentJob> {
  return client.request({
    ...hooks,
    method: 'POST',
    path,
    body: { prompt },
    idempotent: false,
    abortInFlight: false,
    parse: (json) => parseAgentJob(json, `POST ${path}`),
    ...(signal ? { signal } : {}),
  });
}

/**
 * POST a new job. Not idempotent: only retried where the server provably created nothing.
 * `hooks` let the job ledger mark each attempt as it goes out and as its answer comes back.
 */
export function createAgentJob(
  client: HttpClient,
  projectId: string,
  prompt: string,
  signal?: AbortSignal,
  hooks: Pick<RequestOptions<AgentJob>, 'beforeSend' | 'afterSend'> = {},
): Promise<AgentJob> {
  return postPrompt(client, jobPath(projectId), prompt, signal, hooks);
}

/**
 * GETs job `id`. An answer that names another job is a bad answer (a DataError, a failed
 * poll), not that job's news: the ledger keeps following the job it asked for.
 */
export function getAgentJob(client: HttpClient, projectId: string, id: string, signal?: AbortSignal): Promise<AgentJob> {
  const path = jobPath(projectId, id);
  return client.request({
    method: 'GET',
    path,
    parse: (json) => {
      const job = parseAgentJob(json, `GET ${path}`);
      if (job.id !== null && job.id !== id) throw new DataError(`GET ${path} answered with another job ('${job.id}')`);
      return job;
    },
    ...(signal ? { signal } : {}),
  });
}

/**
 * POST a follow-up message to a job; the answer is the job, working again. Not idempotent:
 * only retried where the server provably received nothing. `hooks` as for createAgentJob.
 */
export function sendAgentMessage(
  client: HttpClient,
  projectId: string,
  jobId: string,
  prompt: string,
  signal?: AbortSignal,
  hooks: Pick<RequestOptions<AgentJob>, 'beforeSend' | 'afterSend'> = {},
): Promise<AgentJob> {
  return postPrompt(client, `${jobPath(projectId, jobId)}/message`, prompt, signal, hooks);
}

/** The job id the key check asks for; no job has it. */
const KEY_CHECK_JOB = 'docpipe-key-check';

/**
 * Checks the key with one request that no rate limit counts (a GET of a job: polling is not
 * limited) and that changes nothing: a 404 (no such job) or any answer but 401/403 means the
 * API took the key; 401/403 throws KeyRejectedError. Other failures say nothing about the key
 * and are left to the requests that follow.
 */
export async function probeKey(client: HttpClient, projectId: string, signal?: AbortSignal): Promise<'accepted' | 'unknown'> {
  try {
    await client.request({
      method: 'GET',
      path: jobPath(projectId, KEY_CHECK_JOB),
      unbudgeted: true,
      parse: () => null,
      ...(signal ? { signal } : {}),
    });
    return 'accepted';
  } catch (error) {
    if (error instanceof KeyRejectedError || error instanceof ApiUnreachableError || error instanceof InterruptedError) throw error;
    return error instanceof HttpError && error.status < 500 && error.status !== 429 ? 'accepted' : 'unknown';
  }
}
