"""The ``balsim`` command group: one line and an exit status for every way a command ends."""

import errno
import os
import signal
import sys
import threading

import click

from simulator import __version__
from simulator.core.errors import Fault, Interrupted, UserError


class Failure(click.ClickException):
    """A user's mistake: one line on stderr, exit status 2, no traceback."""

    exit_code = 2


class Stopped(Exception):
    """A command stopped by the user; ``str()`` is the line to print (exit status 1).  Raised
    in place of KeyboardInterrupt, which click would print as a blank line and "Aborted!"."""


class Stop:
    """SIGINT and SIGTERM stop a command alike.  The first raises KeyboardInterrupt, so the
    command cleans up (workers stopped, only whole parts kept) and says how to go on; a signal
    that comes while it cleans up, or after it has finished, ends the process at once with one
    line instead of a traceback from the middle of the clean-up."""

    def __init__(self):
        self.state, self.code = "running", 1

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, self.handle)

    def handle(self, signum, frame):
        if self.state == "running":
            self.state = "stopping"
            raise KeyboardInterrupt
        if self.state == "stopping":
            os.write(2, b"Aborted.\n")
        os._exit(self.code)

    def finished(self, code: int) -> None:
        self.state, self.code = "finished", code


STOP = Stop()

# failures of the machine, not of balsim nor of the user's input: said as they are, exit 1
MACHINE_ERRORS = {
    errno.ENOSPC: "; free some space or write elsewhere",
    errno.EDQUOT: "; free some space or write elsewhere",
    errno.EFBIG: " (a limit on file size, see ulimit -f)",
    errno.EROFS: "; write elsewhere",
    errno.EIO: "",
    errno.EACCES: "",
    errno.EPERM: "",
}


class BalsimGroup(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as e:
            raise Failure(str(e)) from None
        except KeyboardInterrupt as e:
            raise Stopped(one_line(e) if isinstance(e, Interrupted) else "Aborted.") from None

    def main(self, *args, **kwargs):
        """Every usage error is one line ``Error: ...`` on stderr with exit status 2; a fault
        (a worker killed, a full disk, a bug) is one line with exit status 1; so is Ctrl-C."""
        if kwargs.pop("standalone_mode", True) is False:
            return super().main(*args, standalone_mode=False, **kwargs)
        code, message = 0, None
        try:
            code = super().main(*args, standalone_mode=False, **kwargs) or 0
        except click.exceptions.Abort:
            code, message = 1, "Aborted."
        except Stopped as e:
            code, message = 1, str(e)
        except click.ClickException as e:
            text = " ".join(e.format_message().split())
            if isinstance(e, click.UsageError) and e.ctx is not None:
                text = f"{text} (see '{e.ctx.command_path} --help')"
            code = 2 if isinstance(e, (click.UsageError, Failure)) else e.exit_code
            message = f"Error: {text}"
        except Fault as e:
            code, message = 1, f"Error: {one_line(e)}"
        except KeyboardInterrupt:
            code, message = 1, "Aborted."
        except MemoryError:
            code, message = 1, "Error: out of memory"
        except Exception as e:  # the machine failing, or a bug: still one line
            if os.environ.get("BALSIM_TRACEBACK"):
                raise
            code, message = 1, f"Error: {failure(e)}"
        STOP.finished(code)
        if message:
            click.echo(message, err=True)
        sys.exit(code)


def failure(error: Exception) -> str:
    """The line for an error no command turned into one: a failure of the machine (a full
    disk) as it is, anything else as a bug, with how to see its traceback."""
    if isinstance(error, OSError) and error.errno in MACHINE_ERRORS:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}{MACHINE_ERRORS[error.errno]}"
    return (
        f"unexpected {type(error).__name__}: {one_line(error)} (a bug in balsim; "
        "BALSIM_TRACEBACK=1 shows where)"
    )


def one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


@click.group(
    cls=BalsimGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(__version__, prog_name="balsim")
def cli():
    """Balance-analysis Monte Carlo simulator for Karnaxis, Karmaggän and Ekonos.

    \b
    Quick start:
      balsim run ekonos -n 20000 -p 4 --out runs/ek   # seconds
      balsim report runs/ek --out reports/ek.html
      balsim ask loans --quick          # a first decided answer, about a minute
      balsim study                      # the default study of all three games (minutes)
    """
