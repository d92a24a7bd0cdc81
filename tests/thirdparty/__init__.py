"""Third-party clients (clients/, run in their own venv) on the emulator and proxy."""
