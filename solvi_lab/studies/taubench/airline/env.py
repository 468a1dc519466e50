"""The τ-bench airline environment: the 14 tools on the shared copy-on-write tables.

Everything but the tools is :class:`~solvi_lab.studies.taubench.domain.TableEnv` (the same step contract as
retail: ``"Error: ..."`` texts are refusals, ``Unknown action <name>``, changed records, copy, edit, data hash).
One airline-only behaviour: ``send_certificate`` for a user already holding its three certificate ids makes
upstream's step itself raise; here :class:`~solvi_lab.studies.taubench.domain.StepCrashed`, nothing changed.

>>> env = AirlineEnv({"users": {}, "flights": {}, "reservations": {}})
>>> env.step("get_reservation_details", {"reservation_id": "ABC123"})
StepResult(observation='Error: user not found', refused=True, changed={'flights': {}, 'reservations': {}, 'users': {}})
>>> len(env.tool_names), env.tool_names[0]
(14, 'book_reservation')
"""

from __future__ import annotations

from ..domain import Domain, StepResult, TableEnv
from .tools import TERMINATE_TOOLS, TOOLS_BY_NAME, WRITING_TOOLS

__all__ = ["AIRLINE", "TABLES", "AirlineEnv", "StepResult"]

TABLES: tuple[str, ...] = ("flights", "reservations", "users")

#: The airline domain as a plug-in of the shared environment.
AIRLINE = Domain(
    name="airline",
    tables=TABLES,
    tools=TOOLS_BY_NAME,
    writing=WRITING_TOOLS,
    terminate=TERMINATE_TOOLS,
    upstream_module="tau_bench.envs.airline.tools",
)


class AirlineEnv(TableEnv):
    """Flights, reservations and users plus the 14 airline tools (see the module docstring)."""

    domain = AIRLINE
