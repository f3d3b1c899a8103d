#!/usr/bin/env bash
# Run from the repository root on the GPU machine (device tool, nvidia-h200-x2; carry .deps .wt).
# Session 7, GPU call 2: the helper branches' second-round candidates (commands: scripts/calls/s7c2_<branch>.sh),
# built and run as call 1 did.
PREFIX=s7c2 exec bash "$(dirname "$0")/s7call1.sh"
