"""τ-bench airline, re-implemented as a second domain plug-in: data (:mod:`.data`), the 14 tools (:mod:`.tools`),
the environment (:mod:`.env`), the recorded GPT-4o runs replayed (:mod:`.trajectories`), vocabulary, probes and
the study.

>>> from solvi_lab.studies.taubench.airline import AirlineEnv, load_airline   # doctest: +SKIP
>>> AirlineEnv(load_airline()).step("get_user_details", {"user_id": "mia_li_3668"}).refused  # doctest: +SKIP
False
"""

from solvi_lab.studies.taubench.airline.data import AirlineData, find_airline_dir, load_airline
from solvi_lab.studies.taubench.airline.env import AirlineEnv

__all__ = ["AirlineData", "AirlineEnv", "find_airline_dir", "load_airline"]
