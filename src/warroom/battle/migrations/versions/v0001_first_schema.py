"""The first battle schema: battles and their event log.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "battles",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("updated_at", sa.String(40), nullable=False),
        sa.Column("counter", sa.Integer, nullable=False),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("token_a", sa.String(64), nullable=False),
        sa.Column("token_b", sa.String(64), nullable=False),
        sa.Column("token_view", sa.String(64), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("battle_id", sa.String(32),
                  sa.ForeignKey("battles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("at", sa.String(40), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_table("battles")
