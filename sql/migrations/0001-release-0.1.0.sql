-- Schema version 1: the tables of docpipe 0.1.0, as that release created them. A database
-- written by 0.1.0 has these tables and no schema_version; it is recorded as version 1 and
-- migrated from there. Never edit a migration that has shipped: add the next one.

CREATE TABLE IF NOT EXISTS visitor_totals (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, extracted_at TIMESTAMPTZ, run_id VARCHAR, flags VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end)
);
CREATE TABLE IF NOT EXISTS page_visitors (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL, path VARCHAR NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, run_id VARCHAR, flags VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end, path)
);
CREATE TABLE IF NOT EXISTS view_totals (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, extracted_at TIMESTAMPTZ, run_id VARCHAR, flags VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end)
);
CREATE TABLE IF NOT EXISTS page_views (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL, path VARCHAR NOT NULL,
  human BIGINT, ai BIGINT, total BIGINT, run_id VARCHAR, flags VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end, path)
);
CREATE TABLE IF NOT EXISTS runs (
  run_id VARCHAR PRIMARY KEY, command VARCHAR, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ,
  status VARCHAR, exit_code INTEGER, summary JSON
);
CREATE TABLE IF NOT EXISTS loaded_windows (
  metric VARCHAR NOT NULL, project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  fetched_at TIMESTAMPTZ NOT NULL, run_id VARCHAR, row_count BIGINT, pages INTEGER, requests INTEGER,
  walks INTEGER, warnings VARCHAR[],
  PRIMARY KEY (metric, project_id, window_start, window_end)
);
CREATE TABLE IF NOT EXISTS request_log (
  started_at TIMESTAMPTZ NOT NULL, scope VARCHAR NOT NULL, method VARCHAR, path VARCHAR,
  status INTEGER, duration_ms INTEGER, run_id VARCHAR
);
CREATE TABLE IF NOT EXISTS agent_jobs (
  project_id VARCHAR NOT NULL, prompt_key VARCHAR NOT NULL, prompt VARCHAR,
  job_id VARCHAR, status VARCHAR, model VARCHAR, repository VARCHAR, ref VARCHAR,
  pr_link VARCHAR, created_at TIMESTAMPTZ, archived_at TIMESTAMPTZ,
  submitted_at TIMESTAMPTZ, finished_at TIMESTAMPTZ, error VARCHAR,
  source_file VARCHAR, attempts INTEGER, polls INTEGER, updated_at TIMESTAMPTZ, run_id VARCHAR,
  post_started_at TIMESTAMPTZ,
  PRIMARY KEY (project_id, prompt_key)
);
-- Databases from before 0.1.0 was cut may lack this column.
ALTER TABLE agent_jobs ADD COLUMN IF NOT EXISTS post_started_at TIMESTAMPTZ;
