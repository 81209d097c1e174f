"""The ladder's database: its tables (`models`), how it is opened and migrated (`engine`, with
the Alembic migrations in `arena/ladder/migrations/`), and every query the ladder makes, each a
small function on a `Session` (`repository`). SQLite in the ladder's folder by default, any
SQLAlchemy URL (PostgreSQL through psycopg 3) with `--database`."""
