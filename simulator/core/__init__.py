"""The contract every engine follows and what all of balsim shares: games, rules, ASSUMED
values, random streams, kernel kinds, the trace, seating, statistics, errors."""
