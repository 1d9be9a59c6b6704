"""Test doubles for external services (see ``bot/fake_telegram``)."""
