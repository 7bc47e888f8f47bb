"""Where results live: the sample record, the SQLite results store, a run's identity, shard merging."""
