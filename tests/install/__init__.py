"""A user's programs against the installed package (run by .ci/install-check)."""
