"""Child processes with a time limit and a memory cap (core.proc.sandbox): one per call, or a Worker kept up."""

CORES = 2  # the machine the lab targets: one CPU slot, queue worker and conformance check per core
