"""Flames of War national and unit special rules: the catalog
(:mod:`~warroom.games.fow.special_rules.catalog`) and their own procedures
(:mod:`~warroom.games.fow.special_rules.listing`).

Importing this package is cheap and imports none of its modules: the procedures live in
submodules, and nothing is registered on import (the ``fow`` system appends
``listing.procedures()`` to its own). The modules of FoW's shooting use the catalog, and the
special rules' procedures use them, so this package gathers nothing itself.
"""
