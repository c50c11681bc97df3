"""Sums up one schemathesis NDJSON report: operations, requests, 2xx and 5xx answers, failed checks, and
the rejections scripts/schemathesis_hooks.py accepted as documented (a rule the document states).

Usage: schemathesis-summary.py <label> <report-dir>. Prints one line and exits 1 when any request got a
5xx answer or any check failed (a schema violation in either direction, or any other check).
"""
import base64
import glob
import json
import sys
from collections import Counter

label, report_dir = sys.argv[1], sys.argv[2]
paths = sorted(glob.glob(f"{report_dir}/ndjson-*.ndjson"))
if not paths:
    print(f"schemathesis {label}: no report in {report_dir}")
    sys.exit(1)

operations, requests, successes, server_errors, documented = set(), 0, 0, 0, 0
failed = Counter()
examples = []
answers = []


def text(content, limit=300):
    """A recorded body, decoded and cut short."""
    if not content:
        return ""
    raw = base64.b64decode(content["$base64"]).decode("utf-8", "replace") if isinstance(content, dict) else str(content)
    return raw if len(raw) <= limit else raw[:limit] + "…"


for line in open(paths[-1], encoding="utf-8"):
    event = json.loads(line)
    finished = event.get("ScenarioFinished")
    if not finished:
        continue
    recorder = finished["recorder"]
    if recorder["label"] != "Stateful tests":
        operations.add(recorder["label"])
    documented += sum((recorder.get("filtered_failures") or {}).values())
    for interaction in recorder.get("interactions", {}).values():
        requests += 1
        response = interaction.get("response") or {}
        if 200 <= response.get("status_code", 0) < 300:
            successes += 1
        if response.get("status_code", 0) >= 500:
            server_errors += 1
            request = interaction.get("request") or {}
            if len(answers) < 10:
                answers.append(f"  {response['status_code']} after {response.get('elapsed', 0):.1f} s: {request.get('method')} {request.get('uri')} "
                               f"{text(request.get('body'))} -> {text(response.get('content'))}")
    for case_id, checks in recorder.get("checks", {}).items():
        for check in checks:
            if check["status"] == "failure":
                failed[check["name"]] += 1
                case = recorder["cases"].get(case_id, {}).get("value", {})
                if len(examples) < 40:
                    examples.append(f"  {check['name']}: {case.get('method')} {case.get('path')} ({recorder['label']})")

violations = sum(n for name, n in failed.items() if name != "not_a_server_error")
detail = ", ".join(f"{name}={n}" for name, n in sorted(failed.items()))
print(f"schemathesis {label}: operations={len(operations)} requests={requests} 2xx={successes} 5xx={server_errors} "
      f"violations={violations} documented-rejections={documented}" + (f" ({detail})" if detail else ""))
for line in examples + answers:
    print(line)
sys.exit(1 if server_errors or failed else 0)
