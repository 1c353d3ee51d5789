"""The exceptions the CLI turns into one line: a user's mistake, a fault, an interruption."""


class UserError(Exception):
    """Bad input from the user (a rules key, a path, a name, a count); ``str()`` is one line.

    The CLI prints it as ``Error: ...`` with exit status 2."""


class Fault(Exception):
    """A failure that is not the user's input (a worker killed, a full disk); ``str()`` is one
    line saying what was kept and how to go on.  The CLI exits with status 1."""


class Interrupted(KeyboardInterrupt):
    """A command stopped by Ctrl-C or SIGTERM; ``str()`` starts with "Aborted." and says what
    was kept and how to go on.  The CLI exits with status 1."""
