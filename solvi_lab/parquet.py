"""Moved to solvi_lab.explore.parquet (issue 14); this name stays for the notebooks and docs that import it."""

from .explore.parquet import PARQUET_SCHEMA, export_journal, import_journal, journal_from_records, record_hash  # noqa: F401

__all__ = ["PARQUET_SCHEMA", "export_journal", "import_journal", "journal_from_records", "record_hash"]
