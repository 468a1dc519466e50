"""Probes around the gold steps of the airline tasks: what the environment accepts near a real trajectory.

The same protocol as retail's (:mod:`solvi_lab.studies.taubench.probes`, whose :class:`Transition` and seeding
are reused): at the state after the first k gold calls, the gold call and one-dimension variations of it run on
copies of the environment. The variations:

- ids swapped for ids of the same kind: the user's own reservations (each cabin, cancelled or not), another
  user's, a missing one; the owner's payment methods of each kind, another user's, a missing one; another user,
  a missing one;
- enum arguments over their values plus an invalid one;
- flight segments: each segment moved a day earlier / later, to a past date, to another flight of the same
  route, to a missing flight; the list shortened, emptied, the reservation's own current flights;
- numbers: bag counts −1 / +1 / +3, a certificate amount; passengers shortened and extended;
- booking payments: the amount off by one either way, an entry repeated, each of the user's methods paying all;
- the other write tools on the same reservation and the read tools on the call's entities (reservation, user,
  searches on the segment's route and date, a calculation, think, transfer).

A call that makes upstream's step itself raise (``send_certificate`` when all three certificate ids are held) is
not an observation of the environment and is left out.

>>> from solvi_lab.studies.taubench.airline import AirlineEnv, load_airline   # doctest: +SKIP
>>> data = load_airline(); probes = task_probes(AirlineEnv(data), data.tasks[2], seed=0)  # doctest: +SKIP
>>> probes[0].origin, probes[0].accepted   # the gold call comes first   # doctest: +SKIP
('gold', True)
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ....errors import BadParameter
from ..probes import DEFAULT_BUDGET
from ..probing import (
    Transition,
    _seed_for,
    gold_step_probes,
    payment_swaps,
    schema_probes,
    tool_properties,
    tool_required,
    with_changes,
)
from .env import AirlineEnv

__all__ = ["DEFAULT_BUDGET", "Transition", "task_probes", "tasks_probes", "tasks_explore", "effect_of"]

_NO_RESERVATION = "ZZZZZZ"
_CABINS = ("basic_economy", "economy", "business")


def _shift(day: Any, days: int) -> Any:
    try:
        return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()
    except (TypeError, ValueError):
        return day


class _World:
    """Read-only lookups on one state."""

    def __init__(self, state: Mapping[str, Any], rng: random.Random):
        self.s = state
        self.rng = rng

    def owner(self, args: Mapping[str, Any], task_user: str) -> str:
        res = self.reservation(args.get("reservation_id"))
        if res is not None:
            return res["user_id"]
        uid = args.get("user_id")
        return uid if isinstance(uid, str) and uid in self.s["users"] else task_user

    def reservation(self, rid: Any) -> dict[str, Any] | None:
        return self.s["reservations"].get(rid) if isinstance(rid, str) else None

    def other_user(self, uid: str) -> str:
        users = sorted(self.s["users"])
        while True:
            pick = self.rng.choice(users)
            if pick != uid:
                return pick

    def own_reservations(self, uid: str) -> dict[str, str]:
        """One of the user's reservations per (cabin, cancelled)."""
        out: dict[str, str] = {}
        for rid in self.s["users"].get(uid, {}).get("reservations", []):
            res = self.reservation(rid)
            if res is not None:
                when = "past" if min(f["date"] for f in res["flights"] or [{"date": ""}]) < "2024-05-15" else "future"
                out.setdefault(f"{res['cabin']} {res.get('status', 'active')} {when}", rid)
        return out

    def methods(self, uid: str) -> dict[str, dict[str, Any]]:
        return self.s["users"].get(uid, {}).get("payment_methods", {})

    def same_route(self, number: Any) -> str | None:
        flight = self.s["flights"].get(number) if isinstance(number, str) else None
        if flight is None:
            return None
        others = [
            n
            for n, f in self.s["flights"].items()
            if n != number and f["origin"] == flight["origin"] and f["destination"] == flight["destination"]
        ]
        return self.rng.choice(sorted(others)) if others else None


def _segment_variations(world: _World, tool: str, args: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    segs = args.get("flights")
    if not isinstance(segs, list):
        return
    for pos, seg in enumerate(segs[:4]):
        if not isinstance(seg, dict):
            continue
        for label, new in (
            ("day later", dict(seg, date=_shift(seg.get("date"), 1))),
            ("day earlier", dict(seg, date=_shift(seg.get("date"), -1))),
            ("past date", dict(seg, date="2024-05-1" + str(world.rng.randrange(0, 5)))),
            ("missing flight", dict(seg, flight_number="HAT999")),
        ):
            changed = list(segs)
            changed[pos] = new
            yield f"segment {label}", tool, with_changes(args, flights=changed)
        other = world.same_route(seg.get("flight_number"))
        if other is not None:
            changed = list(segs)
            changed[pos] = dict(seg, flight_number=other)
            yield "segment same route", tool, with_changes(args, flights=changed)
    if segs:
        yield "segments shortened", tool, with_changes(args, flights=segs[:-1])
    yield "segments emptied", tool, with_changes(args, flights=[])
    res = world.reservation(args.get("reservation_id"))
    if res is not None:
        current = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
        yield "segments current", tool, with_changes(args, flights=current)


def _variations(
    world: _World, tool: str, args: dict[str, Any], task_user: str, schemas: Mapping[str, Any], first: bool
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    rng = world.rng
    uid = world.owner(args, task_user)
    other = world.other_user(uid)
    res = world.reservation(args.get("reservation_id"))
    props = schemas.get(tool, {})

    if "reservation_id" in args:
        for label, rid in sorted(world.own_reservations(uid).items()):
            yield f"swap reservation own {label}", tool, with_changes(args, reservation_id=rid)
        for label, rid in sorted(world.own_reservations(other).items())[:2]:
            yield f"swap reservation other {label}", tool, with_changes(args, reservation_id=rid)
        yield "swap reservation missing", tool, with_changes(args, reservation_id=_NO_RESERVATION)
    if "payment_id" in args:
        yield from payment_swaps(tool, args, "payment_id", world.methods(uid), world.methods(other))
        yield "swap payment missing", tool, with_changes(args, payment_id="gift_card_0000000")
    if "user_id" in args:
        yield "swap user other", tool, with_changes(args, user_id=other)
        yield "swap user missing", tool, with_changes(args, user_id="nobody_0000")
    for arg, schema in sorted(props.items()):
        if "enum" in schema and arg in args:
            for value in schema["enum"]:
                yield f"enum {arg} {value}", tool, with_changes(args, **{arg: value})
            yield f"enum {arg} invalid", tool, with_changes(args, **{arg: "first"})
    yield from _segment_variations(world, tool, args)
    for arg in ("nonfree_baggages", "total_baggages"):
        if isinstance(args.get(arg), int):
            for d in (-1, 1, 3):
                yield f"number {arg} {d:+d}", tool, with_changes(args, **{arg: args[arg] + d})
    if isinstance(args.get("amount"), (int, float)):
        yield "number amount half", tool, with_changes(args, amount=args["amount"] / 2)
    pax = args.get("passengers")
    if isinstance(pax, list):
        yield "passengers shortened", tool, with_changes(args, passengers=pax[:-1])
        if pax:
            yield "passengers extended", tool, with_changes(args, passengers=pax + pax[:1])
    pays = args.get("payment_methods")
    if isinstance(pays, list) and pays and all(isinstance(p, dict) for p in pays):
        total = sum(p.get("amount", 0) for p in pays)
        for d in (-1, 1):
            changed = [dict(p) for p in pays]
            changed[-1]["amount"] = changed[-1].get("amount", 0) + d
            yield f"payments amount {d:+d}", tool, with_changes(args, payment_methods=changed)
        yield "payments entry repeated", tool, with_changes(args, payment_methods=pays + pays[:1])
        for pid, pm in sorted(world.methods(uid).items()):
            yield (
                f"payments all on own {pm.get('source')}",
                tool,
                with_changes(args, payment_methods=[{"payment_id": pid, "amount": total}]),
            )
        for pid, _pm in sorted(world.methods(other).items())[:1]:
            yield (
                "payments all on other",
                tool,
                with_changes(args, payment_methods=[{"payment_id": pid, "amount": total}]),
            )
    # the other write tools on the same reservation
    if res is not None:
        rid = args["reservation_id"]
        methods = world.methods(res["user_id"])
        pay = sorted(methods)[0] if methods else "credit_card_0000000"
        current = [{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]]
        calls = [
            ("cancel_reservation", {"reservation_id": rid}),
            (
                "update_reservation_baggages",
                {
                    "reservation_id": rid,
                    "total_baggages": res["total_baggages"] + 1,
                    "nonfree_baggages": res["nonfree_baggages"] + 1,
                    "payment_id": pay,
                },
            ),
            ("update_reservation_passengers", {"reservation_id": rid, "passengers": res["passengers"]}),
        ]
        for cabin in _CABINS:
            for pid in sorted(methods):
                calls.append(
                    (
                        "update_reservation_flights",
                        {"reservation_id": rid, "cabin": cabin, "flights": current, "payment_id": pid},
                    )
                )
        for other_tool, kw in calls:
            if other_tool != tool:
                yield f"other tool {other_tool}", other_tool, with_changes(kw)
        yield "read reservation", "get_reservation_details", {"reservation_id": rid}
        for f in res["flights"][:2]:
            for search in ("search_direct_flight", "search_onestop_flight"):
                for day in (f["date"], _shift(f["date"], 1)):
                    yield (
                        f"read {search}",
                        search,
                        {"origin": f["origin"], "destination": f["destination"], "date": day},
                    )
    yield "read reservation missing", "get_reservation_details", {"reservation_id": _NO_RESERVATION}
    if res is not None:
        back = {"origin": res["destination"], "destination": res["origin"]}
        yield "read search return", "search_direct_flight", {**back, "date": "2024-05-2" + str(rng.randrange(0, 9))}
    for label, rid in sorted(world.own_reservations(uid).items()):
        yield f"read reservation own {label}", "get_reservation_details", {"reservation_id": rid}
    airports = sorted({f["origin"] for f in world.s["flights"].values()})
    a, b = rng.sample(airports, 2)
    day = rng.choice(("2024-05-14", "2024-05-15", "2024-05-18", "2024-05-25"))
    yield "read search any route", "search_direct_flight", {"origin": a, "destination": b, "date": day}
    yield "read onestop any route", "search_onestop_flight", {"origin": a, "destination": b, "date": day}
    yield "read user", "get_user_details", {"user_id": uid}
    yield "read user missing", "get_user_details", {"user_id": "nobody_0000"}
    yield "send certificate", "send_certificate", {"user_id": uid, "amount": rng.choice((50, 100, 150))}
    if not first:
        return
    yield "read airports", "list_all_airports", {}
    for expression in ("(100 + 250) * 2", "1200*3", "350 - 120.5", "(2 * 150) / 3", "1250 + 300", "99"):
        yield "calculate", "calculate", {"expression": expression}
    yield "calculate bad", "calculate", {"expression": "100 x 2"}
    words = tool.replace("_", " ")
    yield "think", "think", {"thought": f"The user wants {words}."}
    yield "think numbers", "think", {"thought": f"User {uid}: {words}; 2 passengers, $1,250 total (economy)."}
    yield "transfer", "transfer_to_human_agents", {"summary": f"User {uid} asks for {words}."}
    yield "transfer numbers", "transfer_to_human_agents", {"summary": f"User {uid} wants {words}: $350 refund, 2 bags."}


def effect_of(result: Any, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """What an accepted write did: the touched reservation's status and which tables changed (None for reads)."""
    if result.refused:
        return None
    tables = sorted(t for t, records in result.changed.items() if records)
    if not tables:
        return None
    reservations = result.changed.get("reservations", {})
    status = None
    if reservations:
        rid = args.get("reservation_id") if args.get("reservation_id") in reservations else sorted(reservations)[0]
        status = (reservations[rid] or {}).get("status", "active")
    return {"tables": "+".join(tables), "reservation_status": status}


def task_probes(
    base: AirlineEnv,
    task: Mapping[str, Any],
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
    schemas: Mapping[str, Any] | None = None,
) -> list[Transition]:
    """The probes of one task: gold steps replayed on a copy of `base`, variations run on copies of each state."""
    rng = random.Random(_seed_for(seed, "airline", int(task["index"])))
    user, props = task.get("user_id"), schemas or {}

    def candidates(state: Any, k: int, tool: str, args: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
        return _variations(_World(state, rng), tool, args, user, props, first=k == 0)

    return gold_step_probes(base, task, rng, budget, candidates, effect_of)


def tasks_probes(
    data: Any, indices: Sequence[int], seed: int = 0, budget: int = DEFAULT_BUDGET, base: AirlineEnv | None = None
) -> list[Transition]:
    """Probes of the tasks with these indices, in the given order (tasks without gold calls give none)."""
    by_index = {int(t["index"]): t for t in data.tasks}
    unknown = [i for i in indices if i not in by_index]
    if unknown:
        raise BadParameter(f"no airline task with index {unknown[0]!r}; the tasks are numbered 0..{len(by_index) - 1}.")
    base = base or AirlineEnv(data)
    schemas = tool_properties(data.tools)
    out: list[Transition] = []
    for i in indices:
        out.extend(task_probes(base, by_index[i], seed=seed, budget=budget, schemas=schemas))
    return out


def tasks_explore(
    data: Any, indices: Sequence[int], base: AirlineEnv | None = None, probes: Sequence[Transition] = ()
) -> list[Transition]:
    """The schema exploration (:func:`~..probing.schema_probes`) of the tasks with these indices (training only);
    ``probes``: those tasks' gold-step probes, whose accepted calls of tools the gold never calls are explored too."""
    by_index = {int(t["index"]): t for t in data.tasks}
    unknown = [i for i in indices if i not in by_index]
    if unknown:
        raise BadParameter(f"no airline task with index {unknown[0]!r}; the tasks are numbered 0..{len(by_index) - 1}.")
    base = base or AirlineEnv(data)
    props, required = tool_properties(data.tools), tool_required(data.tools)
    by_task: dict[int, list[Transition]] = {}
    for p in probes:
        by_task.setdefault(p.task, []).append(p)
    return [
        t for i in indices for t in schema_probes(base, by_index[i], props, required, effect_of, by_task.get(i, ()))
    ]
