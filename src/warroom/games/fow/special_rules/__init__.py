"""Flames of War national and unit special rules: the catalog and their own procedures."""
