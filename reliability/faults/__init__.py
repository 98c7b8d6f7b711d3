"""The fault suite: the real metapkg CLI under kill -9, full disks, file-system faults
and network faults, with the promise that nothing is lost. See runner.py and README.md."""
