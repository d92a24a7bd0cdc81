"""The test suite, one package: shared code is imported as `tests.helpers.<module>`."""
