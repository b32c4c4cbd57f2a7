"""The JSON Schemas of eventproof, shipped as package data (see ``eventproof.conformance.schemas``)."""
