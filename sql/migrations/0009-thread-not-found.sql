-- Schema version 9: a thread the API answered 404 (thread not found) is recorded as fetched,
-- not found, so that it is not asked for on every run: it is asked again a week later (a
-- thread not yet available), or with --refresh.
ALTER TABLE assistant_threads ADD COLUMN not_found BOOLEAN DEFAULT false;
COMMENT ON COLUMN assistant_threads.not_found IS 'The API answered 404 (thread not found) when it was fetched: no message; asked again a week after, or when refreshed.';
