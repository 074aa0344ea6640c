import type { HttpClient, RequestOptions } from './http-client.js';
import { parseAgentJob, type AgentJob } from './schemas.js';

function jobPath(projectId: string, id?: string): string {
  const base = `/v2/agent/${encodeURIComponent(projectId)}/job`;
  return id === undefined ? base : `${base}/${encodeURIComponent(id)}`;
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
  const path = jobPath(projectId);
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

export function getAgentJob(client: HttpClient, projectId: string, id: string, signal?: AbortSignal): Promise<AgentJob> {
  const path = jobPath(projectId, id);
  return client.request({
    method: 'GET',
    path,
    parse: (json) => parseAgentJob(json, `GET ${path}`),
    ...(signal ? { signal } : {}),
  });
}
