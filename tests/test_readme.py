"""The README's Python examples run, in order, in one namespace (they are the first thing a user copies)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_examples_run(capsys):
    blocks = python_blocks()
    assert len(blocks) >= 2, "the README lost its examples"
    ns: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), ns)  # noqa: S102 - our own documentation
    out = capsys.readouterr().out
    assert "refused k2: source 'model'" in out
    assert out.count("refuse") >= 2


def test_readme_gives_the_ci_test_command():
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci in README.read_text(encoding="utf-8")
