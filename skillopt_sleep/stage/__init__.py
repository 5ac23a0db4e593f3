"""Staging a night: the proposal on disk, its report, and adopting or rolling it back."""
