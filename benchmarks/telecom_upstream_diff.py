"""Differential check of the telecom environment against upstream τ²-bench's real tools (not a unit test).

Random episodes (a task's initialisation, then 5–25 calls of either side: valid calls, wrong ids, wrong types,
missing / extra / clashing arguments, the other side's tool names, APN objects, network modes) run on upstream's
``TelecomEnvironment`` and on ours; every observation text, refusal flag and both databases after every call are
compared (bill ids a refuel mints at random are compared modulo their random part).

Upstream needs its own interpreter with pydantic (and its import-time dependencies) and a checkout of
``sierra-research/tau2-bench``; nothing of it is copied here: this script writes a small runner that imports it.

    python benchmarks/telecom_upstream_diff.py --upstream-src /path/to/tau2-bench/src \\
        --upstream-python /path/to/venv/bin/python --episodes 300 --seed 1

Prints ``calls <n> episodes with a difference <k>`` and the first differences; exits 1 if any.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from solvi_lab.studies.taubench.telecom.data import find_telecom_dir, load_telecom
from solvi_lab.studies.taubench.telecom.env import TelecomEnv
from solvi_lab.studies.taubench.telecom.model import dump

_RUNNER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from tau2.domains.telecom.environment import TelecomEnvironment
from tau2.domains.telecom.data_model import TelecomDB
from tau2.domains.telecom.user_data_model import TelecomUserDB
from tau2.domains.telecom.tools import TelecomTools
from tau2.domains.telecom.user_tools import TelecomUserTools
from tau2.data_model.tasks import EnvFunctionCall
from tau2.data_model.message import ToolCall
from loguru import logger
logger.remove()
data = sys.argv[2]
tasks = {t["id"]: t for t in json.load(open(data + "/tasks_full.json"))}
out = []
for episode in json.load(open(sys.argv[3])):
    env = TelecomEnvironment("telecom", "", TelecomTools(TelecomDB.load(data + "/db.toml")),
                             TelecomUserTools(TelecomUserDB.load(data + "/user_db.toml")))
    actions = tasks[episode["task"]]["initial_state"]["initialization_actions"]
    env.set_state(None, [EnvFunctionCall(**a) for a in actions], [])
    rows = []
    for i, (req, name, args) in enumerate(episode["calls"]):
        m = env.get_response(ToolCall(id=str(i), name=name, arguments=args, requestor=req))
        try:
            env.sync_tools()  # the orchestrator's end-of-step sync
        except Exception:
            pass
        state = {"crm": env.tools.db.model_dump(), "phone": env.user_tools.db.model_dump()}
        rows.append([m.content, bool(m.error), json.loads(json.dumps(state, default=str, sort_keys=True))])
    out.append(rows)
json.dump(out, open(sys.argv[4], "w"), default=str)
"""

_IDS = ["C1001", "C1002", "C1004", "c1001", "L1002", "L1003", "L1004", "L9", "B1001", "B1002", "B1003", "B1005",
        "B1234321", "P1002", "D1001", "X1", "", None, 5, ["C1001"], "555-123-2002", "555-123-2005"]  # fmt: skip
_VALUES = ["2g_only", "4g_only", "3g_only", "4g_5g_preferred", "5G", None, 5, True, 2.5, -1, 0, 2, "2", [], {},
           "messaging", "browser", "Messaging", "sms", "SMS", "storage", "camera", {"apn_name": "internet"}, {},
           {"mmsc_url": None}, {"apn_name": "broken"}, {"apn_name": "foo"}, {"mms_port": "80"},
           {"reset_at_reboot": "maybe", "x": 1}, "internet"]  # fmt: skip


def episodes(tasks: list[dict[str, Any]], tools: dict[str, list[Any]], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` random episodes (seeded): a task id and its calls ``[requestor, name, arguments]``."""
    rng = random.Random(seed)

    def args_for(params: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in params.get("properties", {}):
            if rng.random() < 0.08:
                continue  # a missing argument
            if "id" in p:
                out[p] = rng.choice(_IDS)
                preferred = {"customer_id": ["C1001"], "line_id": ["L1002", "L1001", "L1003"],
                             "bill_id": ["B1001", "B1002", "B1003", "B1234321"]}.get(p)  # fmt: skip
                if preferred and rng.random() < 0.6:
                    out[p] = rng.choice(preferred)
            else:
                out[p] = rng.choice(_VALUES + _IDS)
                if p == "gb_amount" and rng.random() < 0.6:
                    out[p] = rng.choice([1, 2.0, 0.5, True, 100])
                if p == "phone_number" and rng.random() < 0.6:
                    out[p] = rng.choice(["555-123-2002", "555-123-2005", "555-123-1002"])
        if rng.random() < 0.05:
            out[rng.choice(["x", "tool_name", "self", "requestor", "customerid"])] = 1
        return out

    result = []
    for _ in range(n):
        calls = []
        for _ in range(rng.randint(5, 25)):
            side = rng.choice(["assistant", "user", "user"])
            pool = tools[side] if rng.random() < 0.93 else tools["user" if side == "assistant" else "assistant"]
            if rng.random() < 0.03:
                calls.append([side, rng.choice(["think", "set_data_usage", "break_vpn", "get_status_bar"]), {}])
                continue
            fn = rng.choice(pool)["function"]
            calls.append([side, fn["name"], args_for(fn["parameters"])])
        result.append({"task": rng.choice(tasks)["id"], "calls": calls})
    return result


def _norm(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return re.sub(r"\bB[0-9a-f]{8}\b", "B<new>", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream-src", required=True, help="the src/ folder of a tau2-bench checkout")
    ap.add_argument("--upstream-python", required=True, help="an interpreter that can import it (pydantic 2.x)")
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--data", default=None, help="the telecom data folder (default: as the study finds it)")
    a = ap.parse_args(argv)
    data_dir = find_telecom_dir(a.data)
    data = load_telecom(data_dir)
    eps = episodes(data.tasks, data.tools, a.episodes, a.seed)
    with tempfile.TemporaryDirectory() as tmp:
        runner, probes, answers = Path(tmp, "runner.py"), Path(tmp, "eps.json"), Path(tmp, "up.json")
        runner.write_text(_RUNNER, encoding="utf-8")
        probes.write_text(json.dumps(eps), encoding="utf-8")
        cmd = [a.upstream_python, str(runner), a.upstream_src, str(data_dir), str(probes), str(answers)]
        subprocess.run(cmd, check=True)
        upstream = json.loads(answers.read_text(encoding="utf-8"))
    tasks = {t["id"]: t for t in data.tasks}
    base = TelecomEnv.from_data(data)
    calls = different = 0
    for ep, rows in zip(eps, upstream):
        env = base.copy()
        env.initialise(tasks[ep["task"]])
        for (req, name, args), (text, error, state) in zip(ep["calls"], rows):
            r = env.step(req, name, args, changes=False)
            calls += 1
            ours = json.loads(json.dumps({"crm": dump(env.crm), "phone": dump(env.phone)}, default=str, sort_keys=True))
            if _norm(r.observation) != _norm(text) or r.refused != error or _norm(ours) != _norm(state):
                different += 1
                if different <= 5:
                    print(f"DIFFERENT {ep['task'][:50]} {req} {name} {args}\n  upstream: {error} {text[:300]!r}")
                    print(f"  ours:     {r.refused} {r.observation[:300]!r}")
                break  # the states have diverged: the rest of the episode says nothing new
    print(f"calls {calls} episodes with a difference {different}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
