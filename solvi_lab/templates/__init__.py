"""Files `solvi-lab new` copies (package data, not code): see solvi_lab/scaffold.py."""
