"""The studies of the specification: each a pure function of its parameters and seed."""
