"""Notebooks are found through a documented checkout path: $SOLVI_LAB_REPO, else the source tree; a clear
SolviLabError when the chosen directory has no notebooks/ (an installed wheel)."""

from __future__ import annotations

import pytest

from solvi_lab.errors import SolviLabError
from solvi_lab.studies import registry


def test_default_is_the_source_checkout(monkeypatch):
    monkeypatch.delenv(registry.REPO_ENV, raising=False)
    assert registry.repo_root() == registry.REPO_ROOT
    assert registry.get("example").notebook_path == registry.REPO_ROOT / "notebooks" / "example.ipynb"


def test_env_points_at_another_checkout(monkeypatch, tmp_path):
    (tmp_path / "notebooks").mkdir()
    monkeypatch.setenv(registry.REPO_ENV, str(tmp_path))
    assert registry.repo_root() == tmp_path.resolve()
    assert registry.get("example").notebook_path == tmp_path.resolve() / "notebooks" / "example.ipynb"
    assert registry.get("example").expected_path == tmp_path.resolve() / "data" / "expected" / "example.json"


def test_missing_notebooks_folder_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setenv(registry.REPO_ENV, str(tmp_path))
    with pytest.raises(SolviLabError, match=r"no notebooks/ folder in \$SOLVI_LAB_REPO=.*set SOLVI_LAB_REPO"):
        _ = registry.get("example").notebook_path
