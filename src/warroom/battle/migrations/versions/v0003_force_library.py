"""The force library: forces (TOML texts of unit profiles) saved from a battle page or
the API, for any battle of their game on this server to add in one tap.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "forces",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("units", sa.Text, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(40), nullable=False),
        sa.Column("battle_id", sa.String(32), nullable=True),
        sa.Column("side", sa.String(1), nullable=True),
    )
    op.create_index("forces_by_game", "forces", ["game", "created_at"])


def downgrade() -> None:
    op.drop_index("forces_by_game", table_name="forces")
    op.drop_table("forces")
