"""The ladder's first schema: authors, bots, versions, sets and their seats.

Revision ID: 0001
Revises:
Create Date: 2026-12-02

Written by Alembic's autogenerate from `arena.ladder.db.models`, then tidied; frozen: its types
are SQLAlchemy's own (a UTC time is a DateTime without zone, as `models.UTC` stores it), so it
never changes with the models.
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
        "authors",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("organizer", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
        sa.Column("submitted_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_authors")),
        sa.UniqueConstraint("name", name=op.f("uq_authors_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_authors_token_hash")),
    )
    op.create_table(
        "sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("rated", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sets")),
    )
    op.create_index(op.f("ix_sets_rated"), "sets", ["rated"])
    op.create_index(op.f("ix_sets_status"), "sets", ["status"])
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["authors.id"], name=op.f("fk_bots_author_id_authors")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
    )
    op.create_index(op.f("ix_bots_author_id"), "bots", ["author_id"])
    op.create_table(
        "versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("sets", sa.Integer(), nullable=False),
        sa.Column("last_played", sa.DateTime(), nullable=True),
        sa.Column("build_log", sa.Text(), nullable=False),
        sa.Column("check_bot", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["bot_id"], ["bots.id"], name=op.f("fk_versions_bot_id_bots")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_versions")),
        sa.UniqueConstraint("bot_id", "number", name=op.f("uq_versions_bot_id_number")),
    )
    op.create_index(op.f("ix_versions_created_at"), "versions", ["created_at"])
    op.create_index(op.f("ix_versions_status"), "versions", ["status"])
    op.create_table(
        "set_seats",
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("bullheads", sa.Integer(), nullable=True),
        sa.Column("faults", sa.Integer(), nullable=True),
        sa.Column("mu_before", sa.Double(), nullable=True),
        sa.Column("sigma_before", sa.Double(), nullable=True),
        sa.Column("mu_after", sa.Double(), nullable=True),
        sa.Column("sigma_after", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(["set_id"], ["sets.id"], name=op.f("fk_set_seats_set_id_sets")),
        sa.ForeignKeyConstraint(
            ["version_id"], ["versions.id"], name=op.f("fk_set_seats_version_id_versions")
        ),
        sa.PrimaryKeyConstraint("set_id", "seat", name=op.f("pk_set_seats")),
        sa.UniqueConstraint("set_id", "version_id", name=op.f("uq_set_seats_set_id_version_id")),
    )
    op.create_index("ix_set_seats_version_id_set_id", "set_seats", ["version_id", "set_id"])


def downgrade() -> None:
    op.drop_table("set_seats")
    op.drop_table("versions")
    op.drop_table("bots")
    op.drop_table("sets")
    op.drop_table("authors")
