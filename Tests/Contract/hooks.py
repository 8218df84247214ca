"""Schemathesis hooks for Tollgate's contract run."""
import schemathesis

# The profile import's body is NDJSON: text, sent as schemathesis sends text/plain.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

# CPython 3.11's ast.parse can raise "SystemError: AST constructor recursion depth mismatch" when
# called deep in a stack (a CPython defect, fixed in 3.12). Hypothesis parses source files only to
# describe a lambda for its reprs; such a failure says nothing about the API under test, so the
# lambda is described as unknown (Hypothesis's own word for a lambda it cannot read) instead.
import hypothesis.internal.lambda_sources as _lambda_sources

_describe_lambda = _lambda_sources._lambda_description


def _lambda_description(f, *args, **kwargs):
    try:
        return _describe_lambda(f, *args, **kwargs)
    except SystemError:
        return "lambda: <unknown>"


_lambda_sources._lambda_description = _lambda_description
