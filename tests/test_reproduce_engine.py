"""The papermill engine reproduce registers: public registration, progress chosen per call (no module state)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from papermill.engines import NBClientEngine, papermill_engines

from solvi_lab import reproduce


@pytest.mark.parametrize("progress", [True, False])
def test_engine_takes_progress_per_call_and_hides_it_from_nbclient(monkeypatch, tmp_path, progress):
    seen = {}

    def fake(cls, nb_man, kernel_name, **kwargs):
        seen["kwargs"] = kwargs
        return "ran"

    monkeypatch.setattr(NBClientEngine, "execute_managed_notebook", classmethod(fake))
    name = reproduce._engine_name()
    assert name == "solvi_lab"
    assert reproduce._engine_name() == name  # registering again is harmless
    engine = papermill_engines.get_engine(name)
    nb_man = SimpleNamespace(nb=SimpleNamespace(cells=[1, 2, 3]), output_path=str(tmp_path / "x.ipynb"), pbar=None)
    assert engine.execute_managed_notebook(nb_man, "python3", solvi_progress=progress, log_output=False) == "ran"
    assert seen["kwargs"] == {"log_output": False}
    assert (nb_man.pbar is not None) is progress
    if progress:
        assert nb_man.pbar.total == 3
        nb_man.pbar.close()


def test_no_module_level_progress_switch():
    assert not hasattr(reproduce, "_progress_enabled")
