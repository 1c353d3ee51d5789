"""The default study and the designer's questions (``balsim ask``)."""
