"""Observation during runs: device, CPU, network and process IO samples, device mapping, phases."""
