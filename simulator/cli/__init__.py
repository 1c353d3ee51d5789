"""The ``balsim`` command: thin click commands over the library, split by command group."""

import sys

import click

from simulator import __version__
from simulator.errors import UserError


class Failure(click.ClickException):
    """A user's mistake: one line on stderr, exit status 2, no traceback."""

    exit_code = 2


class BalsimGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as e:
            raise Failure(str(e)) from None

    def main(self, *args, **kwargs):
        """Every usage error is one line ``Error: ...`` on stderr with exit status 2."""
        if kwargs.pop("standalone_mode", True) is False:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        except click.ClickException as e:
            message = " ".join(e.format_message().split())
            if isinstance(e, click.UsageError) and e.ctx is not None:
                message = f"{message} (see '{e.ctx.command_path} --help')"
            click.echo(f"Error: {message}", err=True)
            sys.exit(2 if isinstance(e, (click.UsageError, Failure)) else e.exit_code)
        sys.exit(code or 0)


@click.group(cls=BalsimGroup, context_settings={"help_option_names": ["-h", "--help"],
                                                "max_content_width": 100})
@click.version_option(__version__, prog_name="balsim")
def cli():
    """Balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos.

    \b
    Quick start:
      balsim run ekonos -n 1000000 -p 4 --out runs/ek
      balsim report runs/ek --out reports/ek.html
      balsim study                      # the default study of all three games
    """


from simulator.cli import info, play, report  # noqa: E402,F401  (register the commands)
from simulator.cli import tools  # noqa: E402,F401  (tune, fit, sensitivity)


def main():
    cli(prog_name="balsim")
