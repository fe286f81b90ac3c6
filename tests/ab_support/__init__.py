"""Workloads, a Functions Framework function and a server helper for the A-B suite tests."""
