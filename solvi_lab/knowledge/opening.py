"""Opening a store's journal: the file folded into an empty fold in one pass, and a fresh start.

Its one job: open the journal at a path with the fold as its `on_load` (every record folded as the journal
verifies it — or, with a fold snapshot the journal bears out, only the records after it: knowledge/fold_snapshot.py),
fold what other writers appended since (`catch_up`), and delete a journal and the files kept beside it
(`start_fresh`). Functions over the fold and the journal — never the store: `KnowledgeStore.open()` and
`KnowledgeStore(path)` hand them the fold they hold. It may not decide a status or write a record.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadInput
from ..journal import Journal, _owner_refuses
from ..journal_head import head_file
from .fold_snapshot import snapshot_path
from .snapshot_files import clean_on_open
from .snapshot_load import SnapshotLoader

if TYPE_CHECKING:
    from .fold import Fold


def start_fresh(path: Any) -> None:
    """Delete the journal at `path` and what is kept beside it (KnowledgeStore.open(path, fresh=True))."""
    if not isinstance(path, (str, os.PathLike)):
        raise BadInput(f"fresh=True needs a journal file path, got {path!r}.")
    journal = Path(path)
    if journal.is_dir():
        raise BadInput(f"{journal} is a directory, not a journal file; give the journal's file path.")
    sides = [head_file(journal), snapshot_path(journal)] + [Path(f"{journal}{x}") for x in ("-wal", "-shm", "-journal")]
    for side in [*sides, journal]:
        side.unlink(missing_ok=True)


def constructor_journal(
    fold: Fold, path: Any, journal: Any, timestamps: Any, expect_head: Any, older: dict[str, Any], freeze_min: int
) -> tuple[Journal, int | None]:
    """`KnowledgeStore(path, journal=, timestamps=, expect_head=, **older)`'s arguments checked, and its journal:
    the one at `path` folded into `fold` (`open_journal`), or the caller's own (its expected head checked).
    `older`: the older names of the arguments (`clock=` for `timestamps=`, with a DeprecationWarning)."""
    if set(older) - {"clock"}:
        raise TypeError(f"KnowledgeStore() got unexpected keyword arguments {sorted(set(older) - {'clock'})}")
    if "clock" in older:  # the older name of `timestamps`
        warnings.warn("KnowledgeStore(clock=...) is now timestamps=...", DeprecationWarning, stacklevel=5)
        timestamps = older["clock"]
    if path is not None and journal is not None:
        raise BadInput("pass either a path or a journal to KnowledgeStore, not both.")
    if journal is None:  # one pass over a file (or a new journal in memory)
        return open_journal(fold, path, freeze_min=freeze_min, timestamps=timestamps, expect_head=expect_head)
    if timestamps is not None:
        raise BadInput("timestamps= belongs to the Journal; pass Journal(timestamps=...) as journal=.")
    if expect_head is not None and isinstance(journal, Journal):
        journal.check_head(expect_head)
    return journal, None


def open_journal(
    fold: Fold, path: Any, *, use_snapshot: bool = True, freeze_min: int | None = None, **journal_options: Any
) -> tuple[Journal, int | None]:
    """The journal at `path` (in memory for None; created when absent) with every record it holds folded into the
    empty `fold`, and the position of the fold snapshot the load used (None: none). `journal_options` go to the
    Journal (timestamps, expect_head, durability, backend, ...). A failed load closes the journal (its lock)."""
    loader = SnapshotLoader(fold, path, use=use_snapshot, freeze_min=freeze_min)
    journal = Journal(
        path,
        **{
            **journal_options,
            "on_load": loader.on_load,
            "load_checks": False,  # the fold reads every record it folds; its errors become CorruptJournal
            "skip_prefix": loader.prefix,  # the records a fold snapshot covers: checked by their chain alone
        },
    )
    try:
        snapshot_at = loader.finish(journal)
        clean_on_open(journal)  # temporary snapshot files a killed writer left (knowledge/snapshot_files.py)
    except BaseException:
        journal.close()
        raise
    return journal, snapshot_at


def catch_up(fold: Fold, journal: Journal) -> None:
    """Fold the records other writers (the decision log, the action model, ...) appended to the shared journal
    since the fold's position; a record the fold cannot read is named with its writer's kind."""
    for r in journal.records(fold.position):
        try:
            fold._fold((r,))
        except Exception as e:  # a record another writer appended that the fold cannot read
            raise _owner_refuses(str(journal.path or "journal"), r.position, r.kind, e) from None
