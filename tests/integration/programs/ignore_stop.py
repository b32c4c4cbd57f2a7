"""Answers well, but ignores stop, the end of its input and SIGTERM: only SIGKILL ends it."""

import signal
import time

from _serve import serve

signal.signal(signal.SIGTERM, signal.SIG_IGN)
serve(obey_stop=False)
time.sleep(3600)
