"""The specification's import path `...knowledge.episodes`: the episodes module."""

from ..episodes import *  # noqa: F401,F403
from ..episodes import __all__  # noqa: F401
