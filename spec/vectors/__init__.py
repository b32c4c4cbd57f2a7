"""Language-neutral conformance vectors, shipped as package data."""
