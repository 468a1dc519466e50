"""The project's own test runs keep IPython's and matplotlib's state inside the environment, as `solvi-lab` and its
kernel do (solvi_lab.kernel.keep_state_in_environment): without this the test process itself wrote
~/.config/matplotlib, ~/.cache/matplotlib and ~/.ipython. At the repository's root so that it runs before the
doctests of solvi_lab/ and the notebooks are collected; a variable the user set wins."""

from solvi_lab.kernel import keep_state_in_environment

keep_state_in_environment()


def _isolated_state_dir() -> None:
    """Every test process keeps the journal head index (solvi_lab.journal_head_index) in a folder of its own, never
    in the environment's or the user's: the suite writes nothing a later run (or the user) would read. Set here, at
    import, so the doctests, the notebooks' kernels and every subprocess a test starts inherit it; a test of the index
    itself points SOLVI_LAB_STATE_DIR at its own tmp_path."""
    import atexit
    import os
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="solvi_lab_state_")
    os.environ["SOLVI_LAB_STATE_DIR"] = folder
    atexit.register(shutil.rmtree, folder, True)


_isolated_state_dir()
