"""Finding and loading the τ-bench retail data, and parsing upstream's Python task files.

Everything except the last group runs on small synthetic files written to ``tmp_path``; the
tests on the real data skip with a message when it is not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solvi_lab.errors import BadInput, DataMissing
from solvi_lab.studies.taubench import data as data_module
from solvi_lab.studies.taubench.data import ENV_VAR, find_data_dir, load_retail
from solvi_lab.studies.taubench.upstream_tasks import (
    convert_tasks_file,
    load_upstream_tasks,
    parse_tasks_source,
    parse_tool_schemas,
)

USERS = {"u1": {"name": {"first_name": "A", "last_name": "B"}, "email": "a@b", "payment_methods": {}, "orders": []}}
ORDERS = {"#W1": {"order_id": "#W1", "user_id": "u1", "status": "pending", "items": [], "payment_history": []}}
PRODUCTS = {"p1": {"name": "Mug", "product_id": "p1", "variants": {}}}
TASK = {"index": 0, "user_id": "u1", "instruction": "hi", "actions": [], "outputs": []}
TOOL = {"type": "function", "function": {"name": "think", "description": "d", "parameters": {"type": "object"}}}


def write_export(directory: Path, *, tag: str = "x") -> Path:
    """A minimal directory in the exported layout; ``tag`` makes two copies distinguishable."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "users.json").write_text(json.dumps(USERS))
    (directory / "orders.json").write_text(json.dumps(ORDERS))
    (directory / "products.json").write_text(json.dumps(PRODUCTS))
    for split in ("train", "test", "dev"):
        (directory / f"tasks_{split}.json").write_text(json.dumps([{**TASK, "instruction": f"{tag}-{split}"}]))
    (directory / "tools.json").write_text(json.dumps([TOOL]))
    (directory / "policy.md").write_text(f"policy {tag}")
    return directory


TASKS_PY = """
from tau_bench.types import Task, Action

TASKS_{SPLIT} = [
    Task(
        annotator="0",
        user_id="u1",
        instruction="You are " "A B.",
        actions=[
            Action(name="get_order_details", kwargs={{"order_id": "#W1"}}),
            Action(
                name="modify_pending_order_items",
                kwargs={{"order_id": "#W1", "item_ids": ["1", "1"], "new_item_ids": ["2", "3"],
                        "payment_method_id": "gift_card_1"}},
            ),
        ],
        outputs=["10.5", "yes"],
    ),
    Task(annotator="", user_id="u2", instruction="{split}", actions=[], outputs=[]),
]
"""

TOOLS_INIT = """
from .think import Think
from .get_x import GetX

ALL_TOOLS = [GetX, Think]
"""

TOOL_MODULE = """
from typing import Any, Dict
from tau_bench.envs.tool import Tool


class {cls}(Tool):
    @staticmethod
    def invoke(data: Dict[str, Any], thought: str) -> str:
        return ""

    @staticmethod
    def get_info() -> Dict[str, Any]:
        return {{
            "type": "function",
            "function": {{
                "name": "{name}",
                "description": (
                    "Two "
                    "parts."
                ),
                "parameters": {{"type": "object", "properties": {{}}, "required": []}},
            }},
        }}
"""


def write_checkout(root: Path) -> Path:
    """A tiny fake upstream checkout: data JSON, tasks_*.py, tools/ and wiki.md."""
    retail = root / "tau_bench" / "envs" / "retail"
    (retail / "data").mkdir(parents=True)
    (retail / "tools").mkdir()
    (retail / "data" / "users.json").write_text(json.dumps(USERS))
    (retail / "data" / "orders.json").write_text(json.dumps(ORDERS))
    (retail / "data" / "products.json").write_text(json.dumps(PRODUCTS))
    for split in ("train", "test", "dev"):
        (retail / f"tasks_{split}.py").write_text(TASKS_PY.format(SPLIT=split.upper(), split=split))
    (retail / "tools" / "__init__.py").write_text(TOOLS_INIT)
    (retail / "tools" / "think.py").write_text(TOOL_MODULE.format(cls="Think", name="think"))
    (retail / "tools" / "get_x.py").write_text(TOOL_MODULE.format(cls="GetX", name="get_x"))
    (retail / "wiki.md").write_text("# wiki")
    return root


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv(ENV_VAR, raising=False)
    return monkeypatch


# ------------------------------------------------------------------ find_data_dir


def test_explicit_path_beats_env_var(tmp_path: Path, no_env: pytest.MonkeyPatch) -> None:
    a, b = write_export(tmp_path / "a"), write_export(tmp_path / "b")
    no_env.setenv(ENV_VAR, str(b))
    assert find_data_dir(a) == a.resolve()
    assert find_data_dir() == b.resolve()


def test_env_var_beats_search(tmp_path: Path, no_env: pytest.MonkeyPatch) -> None:
    write_export(tmp_path / "shared" / "data" / "taubench-retail", tag="searched")
    env_dir = write_export(tmp_path / "env", tag="env")
    no_env.setattr(data_module, "_search_roots", lambda: [tmp_path / "main"])
    no_env.setenv(ENV_VAR, str(env_dir))
    assert load_retail().policy == "policy env"


def test_upward_search_finds_sibling_shared_folder(tmp_path: Path, no_env: pytest.MonkeyPatch) -> None:
    shared = write_export(tmp_path / "shared" / "data" / "taubench-retail", tag="searched")
    start = tmp_path / "main" / "deep" / "er"
    start.mkdir(parents=True)
    no_env.setattr(data_module, "_search_roots", lambda: [start])
    assert find_data_dir() == shared.resolve()


def test_nothing_found_says_how_to_get_the_data(tmp_path: Path, no_env: pytest.MonkeyPatch) -> None:
    no_env.setattr(data_module, "_search_roots", lambda: [tmp_path])
    with pytest.raises(DataMissing) as info:
        find_data_dir()
    message = str(info.value)
    for needle in (ENV_VAR, "users.json", "tools.json", "tau-bench checkout"):
        assert needle in message


def test_explicit_bad_path_is_an_error_not_a_fallback(tmp_path: Path, no_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(DataMissing, match="does not exist"):
        find_data_dir(tmp_path / "nowhere")
    half = tmp_path / "half"
    half.mkdir()
    (half / "users.json").write_text("{}")
    with pytest.raises(DataMissing, match="missing: orders.json"):
        find_data_dir(half)
    no_env.setenv(ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(DataMissing, match=ENV_VAR):
        find_data_dir()


def test_corrupt_json_is_reported(tmp_path: Path) -> None:
    directory = write_export(tmp_path / "d")
    (directory / "orders.json").write_text("{not json")
    with pytest.raises(BadInput, match="orders.json is not valid JSON"):
        load_retail(directory)
    (directory / "orders.json").write_text("[]")
    with pytest.raises(BadInput, match="expected a dict"):
        load_retail(directory)


def test_load_export_layout(tmp_path: Path) -> None:
    loaded = load_retail(write_export(tmp_path / "d", tag="t"))
    assert loaded.users == USERS and loaded.orders == ORDERS and loaded.products == PRODUCTS
    assert loaded.tasks["dev"][0]["instruction"] == "t-dev"
    assert loaded.tools == [TOOL] and loaded.policy == "policy t" and loaded.layout == "export"


# ------------------------------------------------------------------ upstream checkout


def test_convert_synthetic_tasks_file(tmp_path: Path) -> None:
    path = tmp_path / "tasks_x.py"
    path.write_text(TASKS_PY.format(SPLIT="X", split="x"))
    tasks = convert_tasks_file(path)
    assert tasks == [
        {
            "index": 0,
            "user_id": "u1",
            "instruction": "You are A B.",  # implicit string concatenation is a literal
            "actions": [
                {"name": "get_order_details", "kwargs": {"order_id": "#W1"}},
                {
                    "name": "modify_pending_order_items",
                    "kwargs": {
                        "order_id": "#W1",
                        "item_ids": ["1", "1"],
                        "new_item_ids": ["2", "3"],
                        "payment_method_id": "gift_card_1",
                    },
                },
            ],
            "outputs": ["10.5", "yes"],
        },
        {"index": 1, "user_id": "u2", "instruction": "x", "actions": [], "outputs": []},
    ]
    assert "annotator" not in tasks[0]  # upstream's Task type drops it


def test_converter_never_executes_code(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    source = f"TASKS = [Task(user_id=open({str(marker)!r}, 'w').name, instruction='', actions=[], outputs=[])]"
    with pytest.raises(BadInput, match="not a plain literal"):
        parse_tasks_source(source)
    assert not marker.exists()


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("T = [Task('u', instruction='', actions=[], outputs=[])]", "positional"),
        ("T = [Task(user_id='u', instruction='', actions=[])]", "lacks \\['outputs'\\]"),
        ("T = [Task(user_id='u', instruction='', actions=[Foo()], outputs=[])]", "expected Action"),
        ("T = [Task(user_id='u', instruction='', actions=[Action(name='x')], outputs=[])]", "lacks \\['kwargs'\\]"),
        ("A = [Task(user_id='u', instruction='', actions=[], outputs=[])]\nB = []", "exactly one"),
        ("T = [Task(**kw)]", "cannot be read"),
        ("T = [", "not valid Python"),
    ],
)
def test_converter_refuses_unexpected_shapes(source: str, message: str) -> None:
    with pytest.raises(BadInput, match=message):
        parse_tasks_source(source)


def test_converter_picks_named_list() -> None:
    source = "TASKS_A = [Task(user_id='a', instruction='', actions=[], outputs=[])]\nTASKS_B = []"
    assert parse_tasks_source(source, variable="TASKS_B") == []
    assert parse_tasks_source(source, variable="TASKS_A")[0]["user_id"] == "a"


def test_load_upstream_checkout(tmp_path: Path) -> None:
    root = write_checkout(tmp_path / "tau-bench")
    loaded = load_retail(root)
    assert loaded.layout == "upstream"
    assert loaded.users == USERS and loaded.orders == ORDERS and loaded.products == PRODUCTS
    assert [len(loaded.tasks[s]) for s in ("train", "test", "dev")] == [2, 2, 2]
    assert loaded.tasks["test"][1]["instruction"] == "test"
    assert [t["function"]["name"] for t in loaded.tools] == ["get_x", "think"]  # ALL_TOOLS order
    assert loaded.tools[0]["function"]["description"] == "Two parts."
    assert loaded.policy == "# wiki"
    # the retail folder itself is accepted too
    retail = root / "tau_bench" / "envs" / "retail"
    assert load_upstream_tasks(retail) == loaded.tasks
    assert parse_tool_schemas(retail) == loaded.tools


# ------------------------------------------------------------------ the real data


@pytest.fixture(scope="module")
def retail():
    try:
        return load_retail()
    except DataMissing as e:
        pytest.skip(f"τ-bench retail data not installed, skipping ({e})")


def test_real_data_shape(retail) -> None:
    assert (len(retail.users), len(retail.orders), len(retail.products)) == (500, 1000, 50)
    assert {s: len(t) for s, t in retail.tasks.items()} == {"train": 500, "test": 115, "dev": 20}
    assert {s: sum(len(t["actions"]) for t in ts) for s, ts in retail.tasks.items()} == {
        "train": 768,
        "test": 582,
        "dev": 25,
    }
    assert all(t["index"] == i for ts in retail.tasks.values() for i, t in enumerate(ts))
    names = [t["function"]["name"] for t in retail.tools]
    assert len(names) == 16 and names[0] == "calculate" and names[-1] == "transfer_to_human_agents"
    assert retail.policy.startswith("# Retail agent policy")
