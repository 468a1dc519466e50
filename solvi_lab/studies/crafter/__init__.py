"""Crafter (Hafner 2021) as a solvi_lab study: adapter, vocabulary, requirements, agents, study."""
