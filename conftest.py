"""The project's own test runs keep IPython's and matplotlib's state inside the environment, as `solvi-lab` and its
kernel do (solvi_lab.kernel.keep_state_in_environment): without this the test process itself wrote
~/.config/matplotlib, ~/.cache/matplotlib and ~/.ipython. At the repository's root so that it runs before the
doctests of solvi_lab/ and the notebooks are collected; a variable the user set wins."""

from solvi_lab.kernel import keep_state_in_environment

keep_state_in_environment()
