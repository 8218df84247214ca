"""docs/paywall.schema.json against the conformance fixtures: every version 1 document in
Fixtures/paywalls/ is valid, and a document of another version is not. Run by
scripts/contract.sh with the contract virtual environment (jsonschema_rs comes with schemathesis)."""
import glob
import json
import sys

import jsonschema_rs

validator = jsonschema_rs.validator_for(json.load(open("docs/paywall.schema.json")))
failures = 0
for path in sorted(glob.glob("Fixtures/paywalls/*.json")):
    document = json.load(open(path))["input"]["document"]
    errors = [error.message for error in validator.iter_errors(document)]
    expected_valid = document.get("version") == 1
    if bool(errors) == expected_valid:
        failures += 1
        print(f"FAIL {path}: {'invalid: ' + '; '.join(errors[:3]) if errors else 'valid, but version ' + str(document.get('version'))}")
    else:
        print(f"ok   {path}")
sys.exit(1 if failures else 0)
