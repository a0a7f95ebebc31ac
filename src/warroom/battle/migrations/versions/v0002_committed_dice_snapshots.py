"""Committed dice and state snapshots: each battle's secret dice seed and export-signing
key, where it came from, the stack of live events; each event's state after it.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("battles") as batch:
        batch.add_column(sa.Column("secret", sa.String(128), nullable=True))
        batch.add_column(sa.Column("sign_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("origin", sa.String(20), nullable=True))
        batch.add_column(sa.Column("live", sa.Text, nullable=True))
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("state", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("state")
    with op.batch_alter_table("battles") as batch:
        batch.drop_column("live")
        batch.drop_column("origin")
        batch.drop_column("sign_key")
        batch.drop_column("secret")
