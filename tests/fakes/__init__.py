"""Test doubles for external services (see ``tests/fakes/telegram``)."""
