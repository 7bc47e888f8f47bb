"""Numbers from records: intervals and tests, per-cell summaries and tables, verdicts and their rules."""
