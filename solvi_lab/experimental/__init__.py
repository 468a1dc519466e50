"""Experimental pieces: measured, but not promised."""
