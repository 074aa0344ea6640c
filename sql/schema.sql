-- docpipe schema. Applied on every open; every statement is idempotent.
-- The analytics tables follow DESIGN §4 exactly; `flags` is an added column that marks rows
-- kept despite a data-quality problem (e.g. total outside [max(human, ai), human + ai]).

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

-- One row per run of a command.
CREATE TABLE IF NOT EXISTS runs (
  run_id VARCHAR PRIMARY KEY, command VARCHAR, started_at TIMESTAMPTZ, finished_at TIMESTAMPTZ,
  status VARCHAR, exit_code INTEGER, summary JSON
);

-- One row per loaded window, replaced together with the window's rows.
CREATE TABLE IF NOT EXISTS loaded_windows (
  metric VARCHAR NOT NULL, project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  fetched_at TIMESTAMPTZ NOT NULL, run_id VARCHAR, row_count BIGINT, pages INTEGER, requests INTEGER,
  walks INTEGER, warnings VARCHAR[],
  PRIMARY KEY (metric, project_id, window_start, window_end)
);

-- Every HTTP attempt (path and query only: the key is never stored). The request budget
-- reads it back, so its memory survives across runs.
CREATE TABLE IF NOT EXISTS request_log (
  started_at TIMESTAMPTZ NOT NULL, scope VARCHAR NOT NULL, method VARCHAR, path VARCHAR,
  status INTEGER, duration_ms INTEGER, run_id VARCHAR
);

-- The batch job ledger (DESIGN §4). A row is written as `pending` before its POST.
CREATE TABLE IF NOT EXISTS agent_jobs (
  project_id VARCHAR NOT NULL, prompt_key VARCHAR NOT NULL, prompt VARCHAR,
  job_id VARCHAR, status VARCHAR, model VARCHAR, repository VARCHAR, ref VARCHAR,
  pr_link VARCHAR, created_at TIMESTAMPTZ, archived_at TIMESTAMPTZ,
  submitted_at TIMESTAMPTZ, finished_at TIMESTAMPTZ, error VARCHAR,
  source_file VARCHAR, attempts INTEGER, polls INTEGER, updated_at TIMESTAMPTZ, run_id VARCHAR,
  -- Set just before a POST and cleared when it provably created nothing: a `pending` row that
  -- still has it was cut off mid-submission, so its outcome is unknown.
  post_started_at TIMESTAMPTZ,
  PRIMARY KEY (project_id, prompt_key)
);

-- Per connection: the appender fills these narrow, unindexed tables on the JavaScript thread
-- (rows carry only what varies per row; `idx` points at their window), then set-based
-- statements move them into the keyed tables on DuckDB's own threads.
CREATE TEMP TABLE IF NOT EXISTS docpipe_stage_rows (
  idx INTEGER, path VARCHAR, human DOUBLE, ai DOUBLE, total DOUBLE, flags VARCHAR
);
CREATE TEMP TABLE IF NOT EXISTS docpipe_stage_windows (
  idx INTEGER, metric VARCHAR, project_id VARCHAR, window_start DATE, window_end DATE,
  human DOUBLE, ai DOUBLE, total DOUBLE, flags VARCHAR, fetched_at TIMESTAMPTZ, run_id VARCHAR,
  row_count BIGINT, pages INTEGER, requests INTEGER, walks INTEGER, warnings VARCHAR
);
