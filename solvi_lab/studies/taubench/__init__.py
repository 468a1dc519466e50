"""τ-bench retail, re-implemented: the data layer (:mod:`.data`), the 16 tools (:mod:`.tools`) and
the copy-on-write environment (:mod:`.env`) that probe studies step through.

>>> from solvi_lab.studies.taubench import RetailEnv, load_retail   # doctest: +SKIP
>>> env = RetailEnv(load_retail())                                   # doctest: +SKIP
>>> env.step("get_order_details", {"order_id": "#W2611340"}).refused  # doctest: +SKIP
False
"""

from solvi_lab.studies.taubench.data import RetailData, find_data_dir, load_retail
from solvi_lab.studies.taubench.env import RetailEnv, StepResult, state_hash

__all__ = ["RetailData", "RetailEnv", "StepResult", "find_data_dir", "load_retail", "state_hash"]
