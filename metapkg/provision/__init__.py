"""Provisioning: put the resolved packages where agent hosts look, all or nothing."""
