"""Notifications: the events of a committed change, told to the people they concern.

``fanout`` turns a transaction's events into ``Notification`` rows (inbox and e-mail), in
the same transaction; ``rules`` says which event notifies whom, with what words. Nobody is
told more than the event's audience lets them see.
"""
