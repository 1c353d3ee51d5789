"""The ``balsim`` command: thin click commands over the library, split by command group.

The group itself and how a command ends are in :mod:`simulator.cli.group`; importing the
command modules registers their commands on it."""

from simulator.cli import ask, assumed, info, ladder, play, report, strength, tools  # noqa: F401
from simulator.cli.group import STOP, cli

__all__ = ["cli", "main"]


def main():
    STOP.install()
    cli(prog_name="balsim")
