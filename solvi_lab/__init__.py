"""solvi_lab: what an agent knows, and from whom."""

__version__ = "0.1.0"
