"""A battle's pending request to undo a virtual roll (the other side
accepts or declines it), whether it was created single-player (free undo), and the rate
limits' counters, kept in the database so they hold across server processes and restarts.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("battles") as batch:
        batch.add_column(sa.Column("undo_asked", sa.Text, nullable=True))
        batch.add_column(sa.Column("solo", sa.Boolean, nullable=True))
    op.create_table(
        "rate_hits",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("bucket", sa.String(40), nullable=False),
        sa.Column("who", sa.String(64), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("rate_hits_lookup", "rate_hits", ["bucket", "who", "at"])


def downgrade() -> None:
    op.drop_index("rate_hits_lookup", table_name="rate_hits")
    op.drop_table("rate_hits")
    with op.batch_alter_table("battles") as batch:
        batch.drop_column("solo")
        batch.drop_column("undo_asked")
