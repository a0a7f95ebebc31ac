"""Moving a battle between servers: the export file (signed with the battle's key) and its
import, which goes through the format's model and must replay exactly.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from warroom.battle import events as evs
from warroom.battle.base import READ_ONLY
from warroom.battle.errors import (
    ImportFormatError,
    NoSuchBattleError,
)
from warroom.battle.state import first_problem
from warroom.battle.verify import BattleVerify
from warroom.battle.verify import replay_states as _states
from warroom.errors import check_text

EXPORT_FORMAT = "warroom-battle"


EXPORT_VERSION = 2
"""2: dice committed (no seed until the end), events typed, the export signed."""


def _sign(key: str, meta: Mapping[str, Any], events: Sequence[Mapping[str, Any]]) -> str:
    body = json.dumps({"battle": meta, "events": events}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key.encode(), body.encode(), hashlib.sha256).hexdigest()


class ExportMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Annotated[StrictStr, Field(pattern=r"^[0-9A-Za-z]{1,32}$")]
    game: Annotated[StrictStr, Field(min_length=1, max_length=32)]
    name: Annotated[StrictStr, Field(min_length=1, max_length=200)]
    created: Annotated[StrictStr, Field(min_length=1, max_length=40)]
    seed: Annotated[StrictInt, Field(ge=0, lt=2**62)] | None = None
    commitment: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


class ExportFile(BaseModel):
    """The export format: the pydantic model every import goes through."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["warroom-battle"]
    version: Literal[1, 2]
    battle: ExportMeta
    events: Annotated[list[evs.AnyEvent], Field(min_length=1, max_length=100_000)]
    signature: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None


class BattleTransfer(BattleVerify):
    """A battle out to a signed file and back in (checked by replaying it)."""

    def export(self, battle_id: str) -> dict[str, Any]:
        """The whole battle, signed with the battle's key. The dice seed is in it only
        once the battle has ended (its ``ended`` event)."""
        row, events, _replay = self._load(battle_id)
        meta = {"id": row["id"], "game": row["game"], "name": row["name"],
                "created": row["created_at"]}
        first = events[0]
        if first.get("commitment") is not None:
            meta["commitment"] = first["commitment"]
        else:
            meta["seed"] = first.get("seed")
        signature = _sign(row["sign_key"], meta, events) if row.get("sign_key") else None
        return {"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "battle": meta,
                "events": events, "signature": signature}

    def import_(self, data: Any) -> dict[str, Any]:
        """Add an exported battle. It goes through the export format's model (every event
        typed and bounded) and must replay exactly; anything else is refused with one
        message naming the field, and nothing is written. The server chooses the new
        battle's id; a log whose dice were never committed (a public seed) is kept
        read-only (:data:`READ_ONLY`): replay and verify only."""
        check_text(data)
        if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
            raise ImportFormatError("not a warroom battle export (no \"format\": {fmt!r})",
                                    fmt=EXPORT_FORMAT)
        if data.get("version") not in (1, EXPORT_VERSION):
            raise ImportFormatError("unsupported export version {version!r}",
                                    version=data.get("version"))
        try:
            parsed = ExportFile.model_validate(data)
        except ValidationError as exc:
            raise ImportFormatError("the export does not fit the format: {problem}",
                                    problem=first_problem(exc)) from None
        meta = parsed.battle
        clean = [e.model_dump(exclude={"undone"}) for e in parsed.events]
        first = clean[0]
        if not (first["kind"] == "created" and first["game"] == meta.game
                and first["name"] == meta.name and first["seed"] == meta.seed
                and first["commitment"] == meta.commitment):
            raise ImportFormatError("the first event does not create the exported battle")
        if meta.game not in self.games():
            raise ImportFormatError("the export's game {game!r} is not known here",
                                    game=meta.game)
        for e in clean:  # drop what the models default, as live events store them
            for k in _DEFAULTED:
                if k in e and e[k] is None:
                    del e[k]
        raw_meta = dict(data["battle"])
        secret: str | None = None
        sign_key: str | None = None
        origin = "unsigned"
        with self.store.read() as conn:  # the original, to check its signature
            try:
                original = self.store.battle_row(conn, meta.id)
            except NoSuchBattleError:
                original = None
        if (original is not None and original.get("sign_key") and parsed.signature
                and hmac.compare_digest(_sign(original["sign_key"], raw_meta,
                                              list(data["events"])), parsed.signature)):
            # the copy is signed from now on, but it never gets the original's secret seed:
            # rolling in a copy would show the original's next dice
            origin, sign_key = "authentic", secrets.token_hex(32)
            secret = original.get("secret")
        # the server chooses the id, never the file (a copy is another battle)
        battle_id = secrets.token_hex(4)
        report = self.check_events(battle_id, clean, secret=secret)
        secret = None
        if not report.ok:
            raise ImportFormatError("the battle does not replay: {problems}",
                                    problems="; ".join(report.problems[:3]))
        if first.get("commitment") is None:
            # its seed was public from the start: anyone could foresee its dice, and a
            # forged file chooses them; replay and verify only
            origin = READ_ONLY
        if secret is None:
            secret = next((e["seed"] for e in clean if e["kind"] == "ended"), None)
        afters, replay = _states(battle_id, clean)
        tokens = {s: secrets.token_urlsafe(18) for s in ("a", "b", "view")}
        with self.store.write() as conn:
            start = afters[0]
            self.store.insert_battle(conn, self._row(
                battle_id, start, meta.created, tokens, secret=secret, sign_key=sign_key,
                origin=origin, legacy_seed=meta.seed, solo=bool(first.get("solo"))))
            counter = 0
            for e, st in zip(clean, afters, strict=True):
                last = e is clean[-1]
                self.store.append(conn, battle_id, e, counter, st.snapshot(),
                                  json.dumps(replay.live) if last else None)
                counter = int(e["seq"])
        return {"id": battle_id, "tokens": tokens, "origin": origin}


_DEFAULTED = ("seed", "commitment", "solo", "profile", "units", "place", "agreed")
"""Event fields whose default (None) a live event leaves out."""
