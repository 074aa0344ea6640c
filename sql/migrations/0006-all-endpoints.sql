-- Schema version 6: the rest of the analytics API (issue 11). Window aggregates carry their
-- window like page_visitors does; event streams are keyed by the API's id and carry the day
-- window they were fetched in, which a re-fetch of that window replaces. Every window of every
-- endpoint has its row in loaded_windows, under the endpoint's name as `metric`.

-- /searches: one row per search term and window; grain (project_id, window_start,
-- window_end, search_query), guaranteed by the loader.
CREATE TABLE searches (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  search_query VARCHAR NOT NULL, hits BIGINT, ctr DOUBLE, top_clicked_page VARCHAR,
  last_searched_at TIMESTAMPTZ, run_id VARCHAR
);
-- totalSearches of a window (all hits, not distinct terms).
CREATE TABLE search_totals (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  total_searches BIGINT, extracted_at TIMESTAMPTZ, run_id VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end)
);
-- /feedback/by-page: at most 100 paths a window (the API has no pagination for it).
CREATE TABLE feedback_by_page (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  path VARCHAR NOT NULL, thumbs_up BIGINT, thumbs_down BIGINT, code BIGINT, total BIGINT, run_id VARCHAR
);
-- /assistant/caller-stats: one row per window.
CREATE TABLE assistant_caller_stats (
  project_id VARCHAR NOT NULL, window_start DATE NOT NULL, window_end DATE NOT NULL,
  web BIGINT, api BIGINT, other BIGINT, total BIGINT, extracted_at TIMESTAMPTZ, run_id VARCHAR,
  PRIMARY KEY (project_id, window_start, window_end)
);
-- /feedback: the three item shapes of the spec in one table (fields a shape lacks are NULL).
CREATE TABLE feedback (
  project_id VARCHAR NOT NULL, id VARCHAR NOT NULL,
  window_start DATE NOT NULL, window_end DATE NOT NULL,
  path VARCHAR, comment VARCHAR, created_at TIMESTAMPTZ, source VARCHAR, status VARCHAR,
  helpful BOOLEAN, contact VARCHAR, code VARCHAR, filename VARCHAR, lang VARCHAR, run_id VARCHAR,
  PRIMARY KEY (project_id, id)
);
-- /assistant: one row per conversation turn.
CREATE TABLE assistant_conversations (
  project_id VARCHAR NOT NULL, id VARCHAR NOT NULL,
  window_start DATE NOT NULL, window_end DATE NOT NULL,
  "timestamp" TIMESTAMPTZ, query VARCHAR, response VARCHAR, response_type VARCHAR,
  sources STRUCT(title VARCHAR, url VARCHAR)[], resolution_status VARCHAR, query_category VARCHAR,
  page_url VARCHAR, thread_id VARCHAR, run_id VARCHAR,
  PRIMARY KEY (project_id, id)
);
-- /assistant/threads/{threadId} (export assistant --threads): the messages of a thread.
CREATE TABLE assistant_messages (
  project_id VARCHAR NOT NULL, thread_id VARCHAR NOT NULL, id VARCHAR NOT NULL,
  role VARCHAR, content VARCHAR, created_at TIMESTAMPTZ, thread_created_at TIMESTAMPTZ, run_id VARCHAR,
  PRIMARY KEY (project_id, thread_id, id)
);

-- What the new tables mean, for any DuckDB client.
COMMENT ON TABLE searches IS 'Search terms per window (/searches): hits, click-through rate and the top clicked page. hits are events: additive across windows of one grain.';
COMMENT ON TABLE search_totals IS 'totalSearches of each searches window (all hits, not distinct terms).';
COMMENT ON TABLE feedback_by_page IS 'Feedback counts per page and window (/feedback/by-page): at most 100 paths a window; a window that had more says so in its warnings.';
COMMENT ON TABLE assistant_caller_stats IS 'Assistant callers per window (/assistant/caller-stats): web, api, other and total.';
COMMENT ON TABLE feedback IS 'Feedback events keyed by the API''s id, with the UTC day window they were fetched in; a re-fetch of that window replaces them.';
COMMENT ON TABLE assistant_conversations IS 'Assistant conversation turns keyed by the API''s id, with the UTC day window they were fetched in; a re-fetch of that window replaces them.';
COMMENT ON TABLE assistant_messages IS 'Messages of the assistant threads the conversations reference (export assistant --threads).';
