"""The specification's import path `...knowledge.worldmap`: the world map module."""

from ..worldmap import *  # noqa: F401,F403
from ..worldmap import __all__  # noqa: F401
