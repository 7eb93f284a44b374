"""The command line: a thin shell over :class:`graphmem.Memory`."""
