-- Agent job outcomes per project: how many prompts ended in each way, and the success rate
-- of the jobs that finished. A job succeeded when it is `completed`; `pr_rate` is the share of
-- finished jobs that opened a pull request (a completed job may have none: no change needed,
-- or a direct commit; a job sent a follow-up message is running again, and keeps its link). Jobs still running (active, pending, or a
-- status the API does not document, which docpipe follows like active) or whose fate is not
-- known (unknown, timed_out) are counted but left out of the rates.
-- May: add counts across projects and batches.
SELECT project_id,
       count(*) AS prompts,
       count(*) FILTER (WHERE status = 'completed') AS completed,
       count(*) FILTER (WHERE status = 'completed' AND pr_link IS NOT NULL) AS with_pr,
       count(*) FILTER (WHERE status = 'failed') AS failed,
       count(*) FILTER (WHERE status = 'archived') AS archived,
       count(*) FILTER (WHERE status = 'rejected') AS rejected,
       count(*) FILTER (WHERE status NOT IN ('completed', 'failed', 'archived', 'rejected', 'unknown', 'timed_out')) AS running,
       count(*) FILTER (WHERE status IN ('unknown', 'timed_out')) AS unresolved,
       count(*) FILTER (WHERE status IN ('completed', 'failed', 'archived', 'rejected')) AS finished,
       round(count(*) FILTER (WHERE status = 'completed')
             / nullif(count(*) FILTER (WHERE status IN ('completed', 'failed', 'archived', 'rejected')), 0), 4) AS success_rate,
       round(count(*) FILTER (WHERE pr_link IS NOT NULL AND status IN ('completed', 'failed', 'archived', 'rejected'))
             / nullif(count(*) FILTER (WHERE status IN ('completed', 'failed', 'archived', 'rejected')), 0), 4) AS pr_rate
FROM agent_jobs
GROUP BY project_id
ORDER BY project_id;
