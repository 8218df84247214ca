"""Schemathesis hooks for Tollgate's contract run."""
import schemathesis

# The profile import's body is NDJSON: text, sent as schemathesis sends text/plain.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
