"""Test helpers shared across areas."""
