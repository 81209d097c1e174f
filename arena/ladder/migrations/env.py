"""Alembic's environment for the ladder: on the connection `upgrade` hands it (online only),
with the models' metadata for autogenerate, batch mode so that SQLite can alter tables, and
types compared, so that the test of models against migrations sees a changed column type.

This folder is Alembic's, not a package (no `__init__.py`: importing this file outside a
migration would fail, and nothing but Alembic reads it); pyproject.toml ships it as package
data. `arena.ladder.db.engine.upgrade` runs the migrations, one file a schema change in
`versions/`, each frozen once landed (it names its own types and never imports the models,
which go on changing). The next one is written by `alembic.command.revision(
migration_config(connection), message, autogenerate=True)` on a database at the newest
migration, then read and tidied by hand."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from arena.ladder.db.models import Base

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError(
        "the ladder's migrations run on a connection: use arena.ladder.db.engine.upgrade"
    )
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
