"""Child processes with a time limit and a memory cap: one per call (sandbox) or one kept up (worker)."""
