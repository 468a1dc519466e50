"""A damaged Parquet export never reaches the native reader in-process and never ends the process (issue 25, 5)."""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

import solvi_lab.explore.parquet as pq_mod
from solvi_lab.errors import CorruptJournal
from solvi_lab.explore.parquet import digest_path, export_journal, import_journal
from solvi_lab.journal import Journal


def export(tmp_path: Path, n: int = 12) -> tuple[Journal, Path]:
    j = Journal()
    for i in range(n):
        j.append("k", {"i": i, "text": "é" * i})
    return j, export_journal(j, tmp_path / "j.parquet")


def test_export_writes_the_files_sha256_beside_it_in_sha256sum_format(tmp_path):
    _, p = export(tmp_path)
    side = digest_path(p)
    assert side.read_text() == f"{hashlib.sha256(p.read_bytes()).hexdigest()}  j.parquet\n"
    assert subprocess.run(["sha256sum", "-c", side.name], cwd=tmp_path, capture_output=True).returncode == 0


def test_a_file_matching_its_digest_is_read_in_process_without_a_child(tmp_path, monkeypatch):
    j, p = export(tmp_path)
    monkeypatch.setattr(pq_mod, "_probe", lambda *a: pytest.fail("a matching digest needs no child process"))
    assert [r.hash for r in import_journal(p)] == [r.hash for r in j]


def test_one_changed_byte_is_refused_and_the_child_reads_it_before_this_process_does(tmp_path, monkeypatch):
    _, p = export(tmp_path)
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x01
    p.write_bytes(bytes(data))
    order = []
    real_read, real_probe = pq_mod.read_native, pq_mod._probe
    monkeypatch.setattr(pq_mod, "read_native", lambda path: order.append("in process") or real_read(path))
    monkeypatch.setattr(pq_mod, "_probe", lambda path: order.append("child") or real_probe(path))
    with pytest.raises(CorruptJournal, match=r"SHA-256 \w+… differs from the \w+… in j\.parquet\.sha256") as e:
        import_journal(p)
    assert "re-export" in str(e.value).lower()
    assert order[0] == "child" and order in (["child"], ["child", "in process"])


def test_a_file_whose_records_check_out_but_whose_digest_differs_is_refused(tmp_path):
    _, p = export(tmp_path)
    digest_path(p).write_text("0" * 64 + "  j.parquet\n")
    with pytest.raises(CorruptJournal, match="not the file export_journal\\(\\) wrote.*although its records check out"):
        import_journal(p)
    digest_path(p).write_text("not a digest")
    with pytest.raises(CorruptJournal, match="is not a SHA-256 digest"):
        import_journal(p)


def test_without_a_digest_the_file_is_read_in_a_child_first_and_still_imports(tmp_path, monkeypatch):
    """Negative case: an export without its .sha256 (copied alone, or written before the digest) still imports,
    after the child process read it."""
    j, p = export(tmp_path)
    digest_path(p).unlink()
    calls = []
    real = pq_mod._probe
    monkeypatch.setattr(pq_mod, "_probe", lambda path, *a: calls.append(path) or real(path, *a))
    assert [r.hash for r in import_journal(p)] == [r.hash for r in j]
    assert calls == [p]


def test_a_reader_that_aborts_the_child_is_a_corrupt_journal_not_the_end_of_the_caller(tmp_path, monkeypatch):
    _, p = export(tmp_path)
    digest_path(p).unlink()
    aborting = tmp_path / "abort.py"
    aborting.write_text("import os\nos.abort()\n")
    panicking = tmp_path / "panic.py"
    panicking.write_text("import sys\nsys.stderr.write('PanicException: called `Option::unwrap()`')\nsys.exit(3)\n")
    assert "aborted the process reading it (SIGABRT" in pq_mod._probe(p, str(aborting))
    assert pq_mod._probe(p, str(panicking)) == "PanicException: called `Option::unwrap()`"
    real = pq_mod._probe
    monkeypatch.setattr(pq_mod, "_probe", lambda path: real(path, str(aborting)))
    with pytest.raises(CorruptJournal, match="is not a readable Parquet file \\(the Parquet reader aborted"):
        import_journal(p)


class PanicException(BaseException):  # what pyo3 raises: a BaseException, not an Exception
    pass


def test_a_panic_of_the_in_process_reader_is_a_corrupt_journal(tmp_path, monkeypatch):
    _, p = export(tmp_path)

    def panics(path):
        raise PanicException("called `Result::unwrap()` on an `Err` value")

    monkeypatch.setattr(pq_mod, "read_native", panics)
    with pytest.raises(CorruptJournal, match="PanicException: called `Result::unwrap"):
        import_journal(p)


def test_the_callers_own_interrupt_is_not_turned_into_corrupt_journal(tmp_path, monkeypatch):
    """Negative case: KeyboardInterrupt and SystemExit belong to the caller and pass through."""
    _, p = export(tmp_path)

    def interrupted(path):
        raise KeyboardInterrupt

    monkeypatch.setattr(pq_mod, "read_native", interrupted)
    with pytest.raises(KeyboardInterrupt):
        import_journal(p)


def test_the_native_reader_script_imports_nothing_of_solvi_lab(tmp_path):
    _, p = export(tmp_path)
    script = Path(pq_mod.__file__).with_name("parquet_native.py")
    code = (
        f"import runpy, sys; sys.argv = ['x', {str(p)!r}]; runpy.run_path({str(script)!r}, run_name='__main__'); "
        "print(any(m.startswith('solvi_lab') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr


def test_the_module_functions_refuse_hostile_arguments_with_bad_input(tmp_path):
    """Bad input, every public call: a deep, huge or hostile path or records argument is a BadInput naming it."""
    from solvi_lab.errors import BadInput
    from solvi_lab.explore.parquet import journal_from_records

    deep = "x"
    for _ in range(1000):
        deep = [deep]
    j, _ = export(tmp_path)
    for bad in (deep, 10**5000, object(), "a\x00b"):
        with pytest.raises(BadInput, match="path must be"):
            export_journal(j, bad)
        with pytest.raises(BadInput, match="path must be"):
            import_journal(bad)
        with pytest.raises(BadInput, match="path must be"):
            journal_from_records([], bad)
    with pytest.raises(BadInput, match="records must be"):
        journal_from_records(10**5000)
    with pytest.raises(BadInput, match="records must be Records"):
        journal_from_records([deep])
