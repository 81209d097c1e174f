"""The Python bot SDK against a scripted arena."""
