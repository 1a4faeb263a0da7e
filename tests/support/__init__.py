"""Helpers shared by several test folders (servers, fakes)."""
