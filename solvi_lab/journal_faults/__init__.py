"""Fault injection for journals: the reusable core of benchmarks/faults.py and of the tests under tests/faults/.

`owners` fuzzes every public writing call of the journal's owners; `files` damages journal files (cuts, byte
changes, deleted/swapped/duplicated/forged records) and `crash` kills appending processes.
"""
