-- Schema version 5: comments on the tables and their columns, so that any DuckDB client
-- (`SELECT comment FROM duckdb_tables()`, `duckdb_columns()`, DBeaver, ...) says what they mean.
-- No table or data changes.

COMMENT ON TABLE visitor_totals IS 'Site-wide unique visitors of each loaded window [window_start, window_end) per project, as the API reports them. Uniques are not additive: never sum them across windows.';
COMMENT ON COLUMN visitor_totals.project_id IS 'Mintlify project id.';
COMMENT ON COLUMN visitor_totals.window_start IS 'First UTC day of the window (inclusive).';
COMMENT ON COLUMN visitor_totals.window_end IS 'UTC day after the window (exclusive), as sent in dateTo.';
COMMENT ON COLUMN visitor_totals.human IS 'Unique human visitors of the window.';
COMMENT ON COLUMN visitor_totals.ai IS 'Unique AI-agent visitors of the window.';
COMMENT ON COLUMN visitor_totals.total IS 'Unique visitors, human and AI deduplicated: max(human, ai) <= total <= human + ai.';
COMMENT ON COLUMN visitor_totals.extracted_at IS 'When the window was fetched.';
COMMENT ON COLUMN visitor_totals.run_id IS 'The run (see runs) that loaded the window.';
COMMENT ON COLUMN visitor_totals.flags IS 'Data-quality flags (NULL when clean).';

COMMENT ON TABLE page_visitors IS 'Unique visitors per page of each loaded window, grain (project_id, window_start, window_end, path). Not additive across windows or pages.';
COMMENT ON COLUMN page_visitors.project_id IS 'Mintlify project id.';
COMMENT ON COLUMN page_visitors.window_start IS 'First UTC day of the window (inclusive).';
COMMENT ON COLUMN page_visitors.window_end IS 'UTC day after the window (exclusive).';
COMMENT ON COLUMN page_visitors.path IS 'Page path, as the API reports it.';
COMMENT ON COLUMN page_visitors.human IS 'Unique human visitors of the page over the window.';
COMMENT ON COLUMN page_visitors.ai IS 'Unique AI-agent visitors of the page over the window.';
COMMENT ON COLUMN page_visitors.total IS 'Unique visitors of the page, human and AI deduplicated.';
COMMENT ON COLUMN page_visitors.run_id IS 'The run that loaded the window.';
COMMENT ON COLUMN page_visitors.flags IS 'Data-quality flags: kept, never dropped (NULL when clean).';

COMMENT ON TABLE view_totals IS 'Site-wide page views of each loaded window per project. Views are events: windows that partition a range may be summed.';
COMMENT ON COLUMN view_totals.project_id IS 'Mintlify project id.';
COMMENT ON COLUMN view_totals.window_start IS 'First UTC day of the window (inclusive).';
COMMENT ON COLUMN view_totals.window_end IS 'UTC day after the window (exclusive).';
COMMENT ON COLUMN view_totals.human IS 'Page views by humans.';
COMMENT ON COLUMN view_totals.ai IS 'Page views by AI agents.';
COMMENT ON COLUMN view_totals.total IS 'All page views of the window.';
COMMENT ON COLUMN view_totals.extracted_at IS 'When the window was fetched.';
COMMENT ON COLUMN view_totals.run_id IS 'The run that loaded the window.';
COMMENT ON COLUMN view_totals.flags IS 'Data-quality flags (NULL when clean).';

COMMENT ON TABLE page_views IS 'Page views per page of each loaded window, grain (project_id, window_start, window_end, path). Additive across windows that partition a range.';
COMMENT ON COLUMN page_views.project_id IS 'Mintlify project id.';
COMMENT ON COLUMN page_views.window_start IS 'First UTC day of the window (inclusive).';
COMMENT ON COLUMN page_views.window_end IS 'UTC day after the window (exclusive).';
COMMENT ON COLUMN page_views.path IS 'Page path, as the API reports it.';
COMMENT ON COLUMN page_views.human IS 'Page views of the page by humans.';
COMMENT ON COLUMN page_views.ai IS 'Page views of the page by AI agents.';
COMMENT ON COLUMN page_views.total IS 'All page views of the page over the window.';
COMMENT ON COLUMN page_views.run_id IS 'The run that loaded the window.';
COMMENT ON COLUMN page_views.flags IS 'Data-quality flags: kept, never dropped (NULL when clean).';

COMMENT ON TABLE agent_jobs IS 'The agent job ledger: one row per prompt submitted with docpipe jobs submit, keyed by (project_id, prompt_key).';
COMMENT ON COLUMN agent_jobs.prompt_key IS 'The prompt''s id from its file, else sha256: and 16 hex digits of its text.';
COMMENT ON COLUMN agent_jobs.prompt IS 'The prompt text sent to the agent.';
COMMENT ON COLUMN agent_jobs.job_id IS 'The API''s job id (NULL until submitted).';
COMMENT ON COLUMN agent_jobs.status IS 'active, completed, archived or failed (the API''s), or local: pending (not yet submitted), unknown (submission outcome unknown), timed_out (stopped polling), rejected (the API refused the prompt).';
COMMENT ON COLUMN agent_jobs.pr_link IS 'The pull request the job opened; NULL while active, and may stay NULL on completed (no change, or a direct commit).';
COMMENT ON COLUMN agent_jobs.created_at IS 'When the API created the job.';
COMMENT ON COLUMN agent_jobs.submitted_at IS 'When docpipe submitted the prompt.';
COMMENT ON COLUMN agent_jobs.finished_at IS 'When docpipe saw the job reach a terminal status.';
COMMENT ON COLUMN agent_jobs.error IS 'Why the job was not submitted or not followed to its end.';

COMMENT ON TABLE runs IS 'Bookkeeping: one row per docpipe run (export, sync, jobs), with its outcome and JSON summary.';
COMMENT ON TABLE loaded_windows IS 'Bookkeeping: every loaded window per metric and project, when it was fetched, its row count and drift warnings (see the window_status view).';
COMMENT ON TABLE request_log IS 'Bookkeeping: every API request attempt (path and status, never the key); the hourly budget counts it across runs.';
COMMENT ON TABLE schema_version IS 'Bookkeeping: the schema migrations applied to this file.';
COMMENT ON TABLE docpipe_meta IS 'Bookkeeping: small facts about the database (e.g. the checksum of the views last applied).';
COMMENT ON COLUMN agent_jobs.flags IS 'Data-quality flags, comma-separated: pr_link_not_url when the API sent a prLink that is not a URL (pr_link is then NULL).';
COMMENT ON TABLE agent_messages IS 'Follow-up messages to agent jobs (docpipe jobs message): one row per message, each sent once, keyed by (project_id, message_key).';
COMMENT ON COLUMN agent_messages.message_key IS 'The message''s id from its batch file, else sha256: and 16 hex digits of its job id and text.';
COMMENT ON COLUMN agent_messages.job_id IS 'The job the message was sent to.';
COMMENT ON COLUMN agent_messages.status IS 'The message''s own status: pending, sent, unknown (outcome unknown; not resent unless asked) or rejected.';
COMMENT ON COLUMN agent_messages.status_after IS 'The job''s status in the API''s answer to the message.';
COMMENT ON COLUMN agent_messages.job_status IS 'The job''s status as last seen while it was followed again (its end status, or timed_out).';
