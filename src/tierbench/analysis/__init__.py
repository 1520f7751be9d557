"""Analysis: pure functions of stored run records (statistics now; cost and model later)."""
