"""Child processes with a time limit and a memory cap (core.proc.sandbox): one per call, or a Worker kept up."""
