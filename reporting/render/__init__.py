"""What a person reads: the HTML report, the leaderboard, a run's files and the end-of-run lines."""
