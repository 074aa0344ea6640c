/** The runs table: one row per command run, with its outcome and summary. */
import { randomUUID } from 'node:crypto';
import type { Database } from './database.js';

export function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomUUID().slice(0, 8)}`;
}

export async function startRun(db: Database, runId: string, command: string, now: number): Promise<void> {
  await db.run(
    `INSERT INTO runs (run_id, command, started_at, status) VALUES ($id, $command, $at::TIMESTAMPTZ, 'running')`,
    { id: runId, command, at: new Date(now).toISOString() },
  );
}

export async function finishRun(
  db: Database,
  runId: string,
  outcome: { status: string; exitCode: number; summary: unknown },
  now: number,
): Promise<void> {
  await db.run(
    `UPDATE runs SET finished_at = $at::TIMESTAMPTZ, status = $status, exit_code = $code,
            summary = $summary::JSON WHERE run_id = $id`,
    {
      id: runId,
      at: new Date(now).toISOString(),
      status: outcome.status,
      code: outcome.exitCode,
      summary: JSON.stringify(outcome.summary),
    },
  );
}
