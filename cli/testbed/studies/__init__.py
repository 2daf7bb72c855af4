"""One module per study kind (serialization, rpc, ipc, servers): what it measures and how.
The contract every module follows is in cli/testbed/studies/runner.py."""
