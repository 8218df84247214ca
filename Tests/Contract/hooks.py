"""Schemathesis hooks for Tollgate's contract run."""
import json
import os
import urllib.error
import urllib.request

import schemathesis

# The profile import's body is NDJSON: text, sent as schemathesis sends text/plain.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")

# Signing out ends the session it is sent with. The console session every console route is fuzzed
# with (scripts/contract.sh) must outlive the run, so the two sign-out routes get sessions of
# their own in its place; a cookie the fuzzer made up or left out is sent as it is.
_SIGN_OUT_SESSIONS = {
    "/v1/console/sign-out": "CONTRACT_SIGN_OUT_SESSION",
    "/v1/console/sign-out-everywhere": "CONTRACT_OTHER_SESSION",
}


# Removing a person is sent for a member of their own (scripts/contract.sh): removing the member
# the other people routes are fuzzed with would leave them nobody to reach but 404.
_REMOVE_PERSON = ("DELETE", "/v1/admin/people/{personId}")


@schemathesis.hook
def before_call(context, case, **kwargs):
    if (case.method.upper(), case.operation.path) == _REMOVE_PERSON and case.path_parameters:
        if case.path_parameters.get("personId") == os.environ["CONTRACT_MEMBER_ID"]:
            case.path_parameters["personId"] = os.environ["CONTRACT_REMOVABLE_ID"]
    variable = _SIGN_OUT_SESSIONS.get(case.operation.path)
    if variable is None or not case.cookies:
        return
    if case.cookies.get("tollgate_session") == os.environ["CONTRACT_CONSOLE_SESSION"]:
        case.cookies["tollgate_session"] = os.environ[variable]

# The contract app's App Store and Apple Ads keys (scripts/contract.sh) are uploaded again once
# the fuzzer has deleted one: the routes that use them would otherwise see no key for the rest
# of the run.
_KEYS = {
    "/v1/admin/app-store/credentials": "CONTRACT_APP_STORE_KEY",
    "/v1/admin/apple-ads/credentials": "CONTRACT_APPLE_ADS_KEY",
}


@schemathesis.hook
def after_call(context, case, response):
    variable = _KEYS.get(case.operation.path)
    if case.method.upper() != "DELETE" or variable is None or not 200 <= response.status_code < 300:
        return
    with open(os.environ[variable]) as key:
        body = json.dumps({"private_key": key.read()}).encode()
    request = urllib.request.Request(
        os.environ["CONTRACT_ORIGIN"] + case.operation.path, data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + os.environ["CONTRACT_SECRET_KEY"]})
    try:
        with urllib.request.urlopen(request) as answer:
            answer.read()
    except urllib.error.HTTPError as refused:
        # 422: a configuration the fuzzer applied meanwhile no longer names the API
        # (`app_store.server_api`, `apple_ads_api`); then no key can be uploaded, by design.
        if refused.code != 422:
            raise

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
