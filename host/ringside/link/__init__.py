"""Ringside host."""
