"""The battle tracker: state derived from an event log, a durable store, luck.

Nothing happens at import time. Use :class:`warroom.battle.core.Battles` with a
:class:`warroom.battle.store.Store` (``open_store(path_or_url)``).
"""
