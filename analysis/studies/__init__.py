"""One module per study kind (serialization, rpc, ipc, servers): what its samples mean.
The contract every module follows is in analysis/study_report.py."""
