"""Helpers for the adapter tests: real services started on loopback."""
