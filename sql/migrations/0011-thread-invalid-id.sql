-- Schema version 11: a thread the API refuses as an invalid id (its documented 400) is
-- recorded like one it does not have (404), so that it is not asked for on every run.
COMMENT ON COLUMN assistant_threads.not_found IS 'The API answered 404 (thread not found) or 400 (invalid thread id) when it was fetched: no message; asked again a week after, or when refreshed.';
