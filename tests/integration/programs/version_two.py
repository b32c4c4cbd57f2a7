"""Answers the start request as a program that speaks protocol version 2."""

from _serve import HANDSHAKE, serve

serve(handshake={**HANDSHAKE, "version": 2})
