"""What each teaching view computes: pure functions on tensors and numbers, no UI."""
