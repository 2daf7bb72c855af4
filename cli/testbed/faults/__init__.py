"""Fault injection: kill, pause or slow one replica (or a whole node), by hand or from an
experiment.

  injector  what a fault is, how it is parsed, the Injector that runs faults, the `fault` verb
"""
