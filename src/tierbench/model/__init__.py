"""The what-if model: run profiles, hardware descriptions, predictions and advice."""
