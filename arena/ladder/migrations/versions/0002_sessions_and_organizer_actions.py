"""Browsers signed in at /login, and the organizer's actions on versions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02

`login_sessions`: a session's id's sha256 (never the id), its author, when it expires and when
it was ended (signed out, its author revoked). `organizer_actions`: a version benched or
restored at /status, by whom, why and when. Written by Alembic's autogenerate from
`arena.ladder.db.models`, then tidied; frozen, as 0001 is.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("id_hash", sa.String(length=64), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["author_id"], ["authors.id"], name=op.f("fk_login_sessions_author_id_authors")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_sessions")),
        sa.UniqueConstraint("id_hash", name=op.f("uq_login_sessions_id_hash")),
    )
    op.create_index(op.f("ix_login_sessions_author_id"), "login_sessions", ["author_id"])
    op.create_table(
        "organizer_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("version_id", sa.Integer(), nullable=False),
        sa.Column("organizer_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["organizer_id"], ["authors.id"], name=op.f("fk_organizer_actions_organizer_id_authors")
        ),
        sa.ForeignKeyConstraint(
            ["version_id"], ["versions.id"], name=op.f("fk_organizer_actions_version_id_versions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_organizer_actions")),
    )
    op.create_index(op.f("ix_organizer_actions_version_id"), "organizer_actions", ["version_id"])


def downgrade() -> None:
    op.drop_table("organizer_actions")
    op.drop_table("login_sessions")
