"""The one exception type for a user's mistake: the CLI prints it as one line, exit status 2."""


class UserError(Exception):
    """Bad input from the user (a rules key, a path, a name, a count); ``str()`` is one line."""
