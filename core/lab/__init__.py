"""What each teaching view computes: pure functions on tensors and numbers, each with its own test."""
